import Testing
import TrovePostgres

/// A password never appears in an error, even from a URL libpq cannot read.
@Suite struct PostgresPasswordRedactionTests {
    @Test(arguments: [
        "postgresql://trove:SeCrEt%ZZ@localhost/db",
        "postgresql://trove:SeCrEt@[::1/db",
        "postgres://trove:SeCrEt@localhost:notaport/db",
        "postgresql://trove@localhost/db?password=SeCrEt&bogus_option=1",
        "postgresql://trove:Se%43rEt@[::1/db",
    ])
    func aURLLibpqCannotReadIsNamedWithoutItsPassword(url: String) throws {
        let error = #expect(throws: PostgresError.self) { try PostgresConnection(url: url) }
        let message = try #require(error?.message)
        #expect(message.hasPrefix("cannot connect to PostgreSQL: "), "\(message)")
        #expect(!message.contains("SeCrEt") && !message.contains("Se%43rEt") && !message.contains("SeCrEt".dropFirst(2)), "\(message)")
    }

    @Test func aLineNamingADatabaseIsKeptWithoutItsPassword() {
        #expect(PostgresConnection.redactingPasswords(in: ".open postgres://ann:p%40ss@db.example/app --replace")
                == ".open postgres://ann:***@db.example/app --replace")
        #expect(PostgresConnection.redactingPasswords(in: ".copy 'postgresql://ann@db/app?password=pw1&sslmode=require'")
                == ".copy 'postgresql://ann@db/app?password=***&sslmode=require'")
        #expect(PostgresConnection.redactingPasswords(in: ".open postgres://ann@db/app") == ".open postgres://ann@db/app")
        #expect(PostgresConnection.redactingPasswords(in: "count Person where name == 'x'") == "count Person where name == 'x'")
    }
}
