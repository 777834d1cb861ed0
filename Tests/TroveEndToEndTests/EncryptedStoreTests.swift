import Foundation
import Testing

/// `--key-file`, and `.backup` of an encrypted store, through the built binary.
@Suite struct EncryptedStoreTests {
    let w: Workspace
    init() throws { w = try Workspace() }

    static let hexKey = String(repeating: "00112233445566778899aabbccddeeff", count: 4)
    static let secret = "Zebulon Quartermaine"

    /// An encrypted People store holding one person, made with the key in `key.hex`.
    func encryptedStore() throws {
        try w.write("key.hex", Self.hexKey + "\n")
        let r = try w.run(["secret.trove", "--key-file", "key.hex", "-s", Workspace.schema("People"),
                           #"insert Person {"id": 1, "name": "\#(Self.secret)"}"#])
        #expect(r.status == 0, "\(r.err)")
    }

    func rawKey(_ byte: UInt8) throws -> String {
        try Data(repeating: byte, count: 64).write(to: w.directory.appendingPathComponent("raw.key"))
        return "raw.key"
    }

    @Test func aStoreMadeWithAKeyFileIsEncryptedAndOpensWithIt() throws {
        try encryptedStore()
        for name in ["secret.trove", "secret.trove-log"] where FileManager.default.fileExists(atPath: w.path(name)) {
            #expect(try w.bytes(name).range(of: Data(Self.secret.utf8)) == nil, "plaintext in \(name)")
        }
        let r = try w.run(["secret.trove", "--key-file", "key.hex", "count Person"])
        #expect(r.status == 0 && r.out == "1\n", "\(r.err)")
    }

    @Test func openingWithoutTheKeyOrWithAnotherExitsTwoSayingSo() throws {
        try encryptedStore()
        let none = try w.run(["secret.trove", "count Person"])
        #expect(none.status == 2)
        #expect(none.err == "trove: cannot open 'secret.trove': the store is encrypted: give its key with --key-file FILE\n")
        let wrong = try w.run(["secret.trove", "--key-file", try rawKey(9), "count Person"])
        #expect(wrong.status == 2)
        // The file is named once: the shell's prefix names it.
        #expect(wrong.err == "trove: cannot open 'secret.trove': wrong encryption key: the key does not open this store\n", "\(wrong.err)")
        for r in [none, wrong] { #expect(!r.err.contains(Self.hexKey) && !r.out.contains(Self.secret)) }
    }

    @Test func aKeyFileOfTheWrongLengthOrMissingIsAUsageError() throws {
        try w.write("short.key", "abcd\n")
        let short = try w.run(["db", "--key-file", "short.key", "count Person"])
        #expect(short.status == 2)
        #expect(short.err.contains("key file 'short.key' holds no encryption key: a key is 64 raw bytes or 128 hexadecimal digits"),
                "\(short.err)")
        #expect(!FileManager.default.fileExists(atPath: w.path("db")))
        let missing = try w.run(["db", "--key-file", "nothing.key", ".models"])
        #expect(missing.status == 2 && missing.err.contains("cannot read key file 'nothing.key'"), "\(missing.err)")
    }

    @Test func aKeyForAPlainStoreIsRefused() throws {
        #expect(try w.run(["plain.trove", "-s", Workspace.schema("People"), ".models"]).status == 0)
        let r = try w.run(["plain.trove", "--key-file", try rawKey(1), ".models"])
        #expect(r.status == 2 && r.err.contains("not encrypted"), "\(r.err)")
    }

    @Test func backupKeepsTheStoresKeyOrTakesAnother() throws {
        try encryptedStore()
        let raw = try rawKey(7)
        let r = try w.run(["secret.trove", "--key-file", "key.hex", ".backup same.trove", ".backup other.trove \(raw)"])
        #expect(r.status == 0 && r.out.isEmpty, "\(r.err)")
        #expect(try w.run(["same.trove", "count Person"]).status == 2)
        #expect(try w.run(["same.trove", "--key-file", "key.hex", "count Person"]).out == "1\n")
        #expect(try w.run(["other.trove", "--key-file", "key.hex", "count Person"]).status == 2)
        #expect(try w.run(["other.trove", "--key-file", raw, "count Person"]).out == "1\n")
        #expect(try w.bytes("other.trove").range(of: Data(Self.secret.utf8)) == nil)
        let bad = try w.run(["secret.trove", "--key-file", "key.hex", ".backup third.trove key-that-is-missing"])
        #expect(bad.status == 1 && bad.err.contains("cannot read key file 'key-that-is-missing'"), "\(bad.err)")
        #expect(!FileManager.default.fileExists(atPath: w.path("third.trove")))
    }

    @Test func withoutATerminalNoKeyIsAskedFor() throws {
        try encryptedStore()
        let r = try w.run(["secret.trove"], stdin: Self.hexKey + "\ncount Person\n")
        #expect(r.status == 2 && r.err.contains("the store is encrypted"), "\(r.err)")
        #expect(r.out.isEmpty)
    }

    @Test func atATerminalTheKeyIsAskedForWithoutEchoAndKeptNowhere() throws {
        try encryptedStore()
        let t = try PseudoTerminal(arguments: [w.path("secret.trove")], environment: [
            "TERM": "xterm", "HOME": w.directory.path, "TROVE_HISTORY": w.path("history"), "LANG": "C.UTF-8",
        ])
        try t.expect("(128 hexadecimal digits): ")
        t.send(Self.hexKey + "\r")
        try t.expectPrompt()
        t.send("count Person\r")
        try t.expect("1")
        try t.expectPrompt()
        // An encrypted store's statements are recalled in the session, and never saved.
        t.send("\u{10}\r")  // Ctrl-P: the previous entry
        try t.expect("count Person\r\n")
        try t.expect("1")
        try t.expectPrompt()
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
        #expect(!t.transcript.contains(Self.hexKey.prefix(16)))
        #expect(!FileManager.default.fileExists(atPath: w.path("history")))
    }

    @Test func aPlainStoresStatementsAreSavedAndAnEncryptedStoresAreNot() throws {
        let made = try w.run(["plain.trove", "-s", Workspace.schema("People"), #"insert Person {"id": 1, "name": "Bo"}"#])
        #expect(made.status == 0, "\(made.err)")
        try encryptedStore()
        let environment = ["TERM": "xterm", "HOME": w.directory.path, "TROVE_HISTORY": w.path("history"), "LANG": "C.UTF-8"]
        let plain = try PseudoTerminal(arguments: [w.path("plain.trove")], environment: environment)
        try plain.expectPrompt()
        plain.send("count Person where name == 'Bo'\r")
        try plain.expect("1")
        try plain.expectPrompt()
        plain.send("\u{04}")
        #expect(try plain.waitForExit() == 0)
        let secret = try PseudoTerminal(arguments: [w.path("secret.trove"), "--key-file", w.path("key.hex")], environment: environment)
        try secret.expectPrompt()
        secret.send("count Person where name == '\(Self.secret)'\r")
        try secret.expect("1")
        try secret.expectPrompt()
        secret.send("\u{04}")
        #expect(try secret.waitForExit() == 0)
        let history = try w.read("history")
        #expect(history.contains("'Bo'") && !history.contains("Zebulon"))
    }

    @Test func aWrongKeyTypedAtTheTerminalExitsTwo() throws {
        try encryptedStore()
        let t = try PseudoTerminal(arguments: [w.path("secret.trove")], environment: ["TERM": "xterm", "HOME": w.directory.path])
        try t.expect("(128 hexadecimal digits): ")
        t.send(String(repeating: "7", count: 128) + "\r")
        try t.expect("wrong encryption key")
        #expect(try t.waitForExit() == 2)
    }

    // MARK: .rekey

    @Test func rekeyGivesTheStoreANewKeyAndTheSessionGoesOnWithIt() throws {
        try encryptedStore()
        let raw = try rawKey(7)
        let r = try w.run(["secret.trove", "--key-file", "key.hex", ".rekey \(raw)", "count Person", ".backup copy.trove"])
        #expect(r.status == 0 && r.out == "1\n", "\(r.err)")
        let old = try w.run(["secret.trove", "--key-file", "key.hex", "count Person"])
        #expect(old.status == 2 && old.err.contains("wrong encryption key"), "\(old.err)")
        #expect(try w.run(["secret.trove", "--key-file", raw, "count Person"]).out == "1\n")
        #expect(try w.run(["copy.trove", "--key-file", raw, "count Person"]).out == "1\n")
        #expect(try w.bytes("secret.trove").range(of: Data(Self.secret.utf8)) == nil)
        #expect(!FileManager.default.fileExists(atPath: w.path("secret.trove-rekey")))
    }

    @Test func rekeyEncryptsAPlainStoreAndNoneDecryptsIt() throws {
        let raw = try rawKey(3)
        let made = try w.run(["plain.trove", "-s", Workspace.schema("People"), #"insert Person {"id": 1, "name": "\#(Self.secret)"}"#,
                              ".rekey \(raw)"])
        #expect(made.status == 0, "\(made.err)")
        #expect(try w.run(["plain.trove", "count Person"]).status == 2)
        #expect(try w.bytes("plain.trove").range(of: Data(Self.secret.utf8)) == nil)
        let plain = try w.run(["plain.trove", "--key-file", raw, ".rekey --none", "count Person"])
        #expect(plain.status == 0 && plain.out == "1\n", "\(plain.err)")
        #expect(try w.run(["plain.trove", "count Person"]).out == "1\n")
    }

    @Test func rekeyWithABadKeyFileOrNoKeyWithoutATerminalChangesNothing() throws {
        try encryptedStore()
        try w.write("short.key", "abcd\n")
        let short = try w.run(["secret.trove", "--key-file", "key.hex", ".rekey short.key"])
        #expect(short.status == 1 && short.err.contains("key file 'short.key' holds no encryption key"), "\(short.err)")
        let missing = try w.run(["secret.trove", "--key-file", "key.hex", ".rekey nothing.key"])
        #expect(missing.status == 1 && missing.err.contains("cannot read key file 'nothing.key'"), "\(missing.err)")
        let typed = try w.run(["secret.trove", "--key-file", "key.hex", ".rekey"])
        #expect(typed.status == 1 && typed.err.contains(".rekey: give the new key's file"), "\(typed.err)")
        let readOnly = try w.run(["secret.trove", "--readonly", "--key-file", "key.hex", ".rekey --none"])
        #expect(readOnly.status == 1 && readOnly.err.contains("read-only"), "\(readOnly.err)")
        let memory = try w.run([":memory:", ".rekey --none"])
        #expect(memory.status == 1 && memory.err.contains("in-memory"), "\(memory.err)")
        #expect(try w.run(["secret.trove", "--key-file", "key.hex", "count Person"]).out == "1\n")
    }

    @Test func rekeyIsRefusedWhileAnotherProcessHasTheStoreOpen() throws {
        try encryptedStore()
        let t = try PseudoTerminal(arguments: [w.path("secret.trove"), "--key-file", w.path("key.hex")],
                                   environment: ["TERM": "xterm", "HOME": w.directory.path])
        try t.expectPrompt()
        let r = try w.run(["secret.trove", "--key-file", "key.hex", ".rekey \(try rawKey(5))", "count Person"])
        #expect(r.status == 1, "\(r.err)")
        #expect(r.err.contains("is open in another process") && r.err.contains("the key is unchanged"), "\(r.err)")
        t.send("count Person\r")
        try t.expect("1")
        try t.expectPrompt()
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
        #expect(try w.run(["secret.trove", "--key-file", "key.hex", "count Person"]).out == "1\n")
    }

    @Test func atATerminalRekeyAsksTwiceWithoutEchoAndKeepsTheKeyNowhere() throws {
        try encryptedStore()
        let newKey = String(repeating: "fedcba9876543210", count: 8)
        let t = try PseudoTerminal(arguments: [w.path("secret.trove"), "--key-file", w.path("key.hex")], environment: [
            "TERM": "xterm", "HOME": w.directory.path, "TROVE_HISTORY": w.path("history"), "LANG": "C.UTF-8",
        ])
        try t.expectPrompt()
        t.send(".rekey\r")
        try t.expect("New encryption key (128 hexadecimal digits): ")
        t.send(newKey + "\r")
        try t.expect("again: ")
        t.send(String(repeating: "1", count: 128) + "\r")
        try t.expect("the two keys typed differ; the key is unchanged")
        try t.expectPrompt()
        t.send(".rekey\r")
        try t.expect("New encryption key (128 hexadecimal digits): ")
        t.send(newKey + "\r")
        try t.expect("again: ")
        t.send(newKey + "\r")
        try t.expectPrompt()
        t.send("count Person\r")
        try t.expect("1")
        try t.expectPrompt()
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
        #expect(!t.transcript.contains(newKey.prefix(16)))
        #expect(!FileManager.default.fileExists(atPath: w.path("history")))
        try w.write("new.hex", newKey)
        #expect(try w.run(["secret.trove", "--key-file", "new.hex", "count Person"]).out == "1\n")
        #expect(try w.run(["secret.trove", "--key-file", "key.hex", "count Person"]).status == 2)
    }
}
