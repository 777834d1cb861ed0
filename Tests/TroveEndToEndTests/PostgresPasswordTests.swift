import Foundation
import Testing

/// The shell never shows nor keeps a PostgreSQL password: not in errors, not in its history.
@Suite struct PostgresPasswordTests {
    let w: Workspace

    init() throws { w = try Workspace() }

    @Test func aURLLibpqCannotReadIsRefusedWithoutItsPassword() throws {
        for url in ["postgresql://trove:SeCrEt%ZZ@localhost/db", "postgresql://trove:SeCrEt@[::1/db"] {
            let r = try w.run([url, "count X"])
            #expect(r.status == 2)
            #expect(r.err.hasPrefix("trove: cannot connect to PostgreSQL: ") && !r.err.contains("SeCrEt"), "\(r.err)")
        }
    }

    @Test func theHistoryKeepsAnOpenedURLWithoutItsPassword() throws {
        let history = w.path("history")
        let t = try PseudoTerminal(arguments: [], environment: [
            "TERM": "xterm", "HOME": w.directory.path, "TROVE_HISTORY": history, "LANG": "C.UTF-8",
        ])
        try t.expectPrompt()
        t.send(".open postgresql://trove:SeCrEt-pw@127.0.0.1:1/trove?connect_timeout=2\r")
        try t.expect("error: ")
        try t.expectPrompt()
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
        let kept = try w.read("history")
        #expect(kept.contains("127.0.0.1") && !kept.contains("SeCrEt"), "\(kept)")
    }
}
