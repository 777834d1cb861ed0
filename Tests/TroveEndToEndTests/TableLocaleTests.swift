import Foundation
import Testing

/// A table's borders follow the user's locale: box-drawing characters in a UTF-8 one, ASCII
/// in any other, whether the command line asks for the table (the locale adopted before the
/// store opens) or a script does later (`.mode table`, adopted when the table is drawn).
@Suite struct TableLocaleTests {
    let w: Workspace
    init() throws {
        w = try Workspace()
        let r = try w.run(["db", "-s", Workspace.schema("People"), #"insert Person {"id": 1, "name": "Ann"}"#])
        #expect(r.status == 0, "\(r.err)")
    }

    /// Runs `trove` in the workspace with the locale variables given and the others unset.
    func run(_ arguments: [String], stdin: String = "", locale: [String: String]) throws -> TroveBinary.Outcome {
        var environment = ["LC_ALL": "", "LC_CTYPE": "", "LANG": ""]
        environment.merge(locale) { $1 }
        return try TroveBinary.run(arguments, stdin: stdin, environment: environment, directory: w.directory)
    }

    static let utf8Locales: [[String: String]] = [["LC_ALL": "C.UTF-8"], ["LANG": "C.UTF-8"], ["LC_CTYPE": "C.UTF-8"]]
    static let asciiLocales: [[String: String]] = [["LC_ALL": "C"], ["LC_ALL": "C", "LANG": "C.UTF-8"], [:]]

    @Test(arguments: utf8Locales)
    func aUTF8LocaleDrawsBoxes(_ locale: [String: String]) throws {
        let option = try run(["db", "--table", "Person"], locale: locale)
        #expect(option.status == 0, "\(option.err)")
        #expect(option.out.contains("│ id │ name │") && option.out.contains("┌"), "\(option.out)")
        let script = try run(["db"], stdin: ".mode table\nPerson\n", locale: locale)
        #expect(script.status == 0, "\(script.err)")
        #expect(script.out.contains("│ id │ name │") && script.out.contains("┌"), "\(script.out)")
    }

    @Test(arguments: asciiLocales)
    func anyOtherLocaleDrawsASCII(_ locale: [String: String]) throws {
        for r in [try run(["db", "--table", "Person"], locale: locale),
                  try run(["db"], stdin: ".mode table\nPerson\n", locale: locale)] {
            #expect(r.status == 0, "\(r.err)")
            #expect(r.out.contains("| id | name |") && r.out.contains("+-"), "\(r.out)")
            #expect(!r.out.contains("│"), "\(r.out)")
        }
    }
}
