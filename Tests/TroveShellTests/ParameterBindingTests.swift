import Testing
import Trove
@testable import TroveShell

/// `.param`: binding `$N` in the shell as `--arg` does on the command line.
extension ShellRunTests {
    @Test func paramSetBindsTheNextStatements() {
        let backend = EchoBackend()
        let r = run([], stdin: ".param set 0 30\n.param set $1 'Ann Lee'\ncount Person where age > $0\n", backend: backend)
        #expect(r.status == 0)
        #expect(backend.seenArguments == [["30", "Ann Lee"]])
    }

    @Test func paramStartsFromArgValuesAndReplacesThem() {
        let backend = EchoBackend()
        let r = run(["--arg", "1", "--arg", "2"], stdin: ".param set 1 20\n.param list\ncount Person\n.param clear\n.param list\ncount Person\n",
                    backend: backend)
        #expect(r.out == "$0 = \"1\"\n$1 = \"20\"\n2\n2\n")
        #expect(backend.seenArguments == [["1", "20"], []])
    }

    @Test func paramCannotSkipANumber() {
        let r = run(["-c", ".param set 2 x"])
        #expect(r.status == 1)
        #expect(r.err == "error: column 8: cannot set $2 before $0: parameters are bound in order from $0\n")
    }

    @Test func paramUsageIsChecked() {
        #expect(run(["-c", ".param"]).err == "error: column 1: usage: .param set N VALUE | list | clear\n")
        #expect(run(["-c", ".param set 0"]).err == "error: column 8: usage: .param set N VALUE (quote a VALUE with blanks)\n")
        #expect(run(["-c", ".param set x 1"]).err == "error: column 12: .param set: 'x' is not a parameter number ($0, $1, ...)\n")
        #expect(run(["-c", ".parameter list x"]).err == "error: column 12: usage: .parameter set N VALUE | list | clear\n")
    }

    @Test func paramValuesShowInShow() {
        #expect(run(["-c", ".param set 0 'a b'", "-c", ".show"]).out.contains("     args: \"a b\"\n"))
    }
}
