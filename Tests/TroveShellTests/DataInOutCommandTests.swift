import Testing
@testable import TroveShell

/// Parsing of the commands that move a store in and out of the shell: `--key-file`, key
/// files, `.open`, `.apply-schema`, `.backup` and `.dump`.
@Suite struct DataInOutCommandTests {
    static let hex = String(repeating: "0123456789abcdef", count: 8)

    @Test func keyFileOptionTakesAValueAnywhere() throws {
        #expect(try CommandLineParser.parse(["db", "--key-file", "k"]).keyFile == "k")
        #expect(try CommandLineParser.parse(["--key-file=k", "db"]).keyFile == "k")
    }

    @Test func aKeyIsSixtyFourRawBytesOrOneHundredTwentyEightHexDigits() throws {
        let raw = (0..<64).map { UInt8($0 * 3 % 256) }
        #expect(try EncryptionKey(contents: raw, source: "k").bytes == raw)
        let fromHex = try EncryptionKey(contents: Array((Self.hex.uppercased() + "\n").utf8), source: "k").bytes
        #expect(fromHex.count == 64)
        #expect(Array(fromHex.prefix(8)) == [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef])
    }

    @Test func aKeyOfAnotherLengthOrWithOtherCharactersIsRefusedWithoutShowingIt() {
        for contents in [Array("0123".utf8), Array((Self.hex + "00").utf8), Array(Self.hex.dropLast().utf8) + [0x67],
                         [UInt8](repeating: 7, count: 63)] {
            #expect {
                _ = try EncryptionKey(contents: contents, source: "key file 'k'")
            } throws: { error in
                let message = (error as? UsageError)?.message ?? ""
                return message.contains("key file 'k' holds no encryption key") && message.contains("64 raw bytes")
                    && !message.contains("0123")
            }
        }
    }

    @Test func openTakesTheCommandLinesStoreOptions() throws {
        guard case .open(let o) = try DotCommand.parse(".open --readonly --key-file k -s s.json 'my store.trove'") else {
            Issue.record("not .open")
            return
        }
        #expect(o.database == "my store.trove" && o.readOnly && o.keyFile == "k" && o.schemaFile == "s.json")
        guard case .open(let memory) = try DotCommand.parse(".open") else { Issue.record("not .open"); return }
        #expect(memory.isInMemory)
        #expect(throws: StatementError.self) { try DotCommand.parse(".open --json a.trove") }
        #expect(throws: StatementError.self) { try DotCommand.parse(".open a.trove b.trove") }
        #expect(throws: StatementError.self) { try DotCommand.parse(".open --nope a.trove") }
    }

    @Test func applySchemaTakesAFileOrJSONTextAsWritten() throws {
        #expect(try DotCommand.parse(".apply-schema 'Schemas/People.json'") == .applySchema(.file("Schemas/People.json")))
        let json = #"{"models": [{"name": "A b", "properties": {"x": "int"}}]}"#
        #expect(try DotCommand.parse(".apply-schema  \(json)  ") == .applySchema(.inline(json)))
        #expect(throws: StatementError.self) { try DotCommand.parse(".apply-schema") }
    }

    @Test func backupTakesAnOptionalKeyFileAndDumpModels() throws {
        #expect(try DotCommand.parse(".backup copy.trove") == .backup(file: "copy.trove", keyFile: nil))
        #expect(try DotCommand.parse(".backup copy.trove new.key") == .backup(file: "copy.trove", keyFile: "new.key"))
        #expect(throws: StatementError.self) { try DotCommand.parse(".backup a b c") }
        #expect(try DotCommand.parse(".dump") == .dump(models: []))
        #expect(try DotCommand.parse(".dump Person Dog") == .dump(models: ["Person", "Dog"]))
    }
}
