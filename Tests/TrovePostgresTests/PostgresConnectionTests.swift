import Testing
import TrovePostgres
import PostgresTestSupport

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresConnectionTests {
    @Test func bindsHostileStringsAsValuesNeverAsSQL() throws {
        let connection = try PostgresConnection(url: try PostgresTestServer.freshURL())
        try connection.execute("CREATE TABLE \"select\" (\"from\" text COLLATE \"C\")")
        let hostile = ["it's", "back\\slash", "$1", "'; DROP TABLE \"select\"; --", "\"quoted\"", "é\u{301}", ""]
        for value in hostile { try connection.execute("INSERT INTO \"select\" VALUES ($1)", [value]) }
        for value in hostile {
            let rows = try connection.execute("SELECT \"from\" FROM \"select\" WHERE \"from\" = $1", [value])
            #expect(rows.rows == [[value]])
        }
        #expect(try connection.execute("SELECT count(*) FROM \"select\"").rows == [["\(hostile.count)"]])
    }

    /// A statement is prepared once and found again by its bytes: the same query with an inlined
    /// text spelled the other way (`e` + U+0301 for `é`) is a statement of its own.
    @Test func eachSpellingOfAnInlinedTextIsPreparedForItself() throws {
        let connection = try PostgresConnection(url: try PostgresTestServer.freshURL())
        try connection.execute("CREATE TABLE t (s text COLLATE \"C\")")
        try connection.execute("INSERT INTO t VALUES ($1)", ["\u{E9}"])
        #expect(try connection.execute("SELECT count(*)::text FROM t WHERE s = '\u{E9}'").rows == [["1"]])
        #expect(try connection.execute("SELECT count(*)::text FROM t WHERE s = 'e\u{301}'").rows == [["0"]])
    }

    /// The server answers COMMIT of a transaction a failed statement aborted by rolling it
    /// back, with no error: the commit throws, saying so.
    @Test func aCommitTheServerRollsBackThrows() throws {
        let connection = try PostgresConnection(url: try PostgresTestServer.freshURL())
        try connection.execute("CREATE TABLE t (id int PRIMARY KEY)")
        try connection.execute("BEGIN")
        try connection.execute("INSERT INTO t VALUES (1)")
        #expect(throws: PostgresError.self) { try connection.execute("SELECT 1/0") }
        let error = try #require(throws: PostgresError.self) { try connection.commit() }
        #expect(error.message.hasPrefix("the transaction was rolled back, not committed"), "\(error)")
        #expect(try connection.execute("SELECT count(*)::text FROM t").rows == [["0"]])
    }

    @Test func refusesANulCharacterClearly() throws {
        let connection = try PostgresConnection(url: try PostgresTestServer.freshURL())
        // The connection knows no model or property: it names the parameter.
        #expect(throws: PostgresError("the text for parameter $2 has a NUL character, which PostgreSQL text cannot hold")) {
            try connection.execute("SELECT $1::text, $2::text", ["a", "a\u{0}b"])
        }
    }

    @Test func aWrongPasswordIsNamedWithoutThePassword() throws {
        let url = PostgresTestServer.url! + "&password=hunter2-not-it"
        let error = #expect(throws: PostgresError.self) { try PostgresConnection(url: url) }
        #expect(error?.message.contains("password authentication failed") == true)
        #expect(error?.message.contains("hunter2") == false)
    }

    @Test func anUnreachableHostIsAClearError() throws {
        let error = #expect(throws: PostgresError.self) {
            try PostgresConnection(url: "postgresql://trove:s3cret-pw@127.0.0.1:1/trove?connect_timeout=2")
        }
        #expect(error?.message.hasPrefix("cannot connect to PostgreSQL: ") == true)
        #expect(error?.message.contains("s3cret-pw") == false)
    }

    @Test func onlyPostgresURLsAreAccepted() throws {
        #expect(PostgresConnection.isURL("postgres://u@h/d") && PostgresConnection.isURL("postgresql://u@h/d"))
        #expect(throws: PostgresError.self) { try PostgresConnection(url: "host=localhost dbname=x") }
    }

    @Test func aFailedTransactionChangesNothing() throws {
        let connection = try PostgresConnection(url: try PostgresTestServer.freshURL())
        try connection.execute("CREATE TABLE t (k int PRIMARY KEY)")
        #expect(throws: PostgresError.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES (1)")
                try connection.execute("INSERT INTO t VALUES (1)")
            }
        }
        #expect(try connection.execute("SELECT count(*) FROM t").rows == [["0"]])
    }
}
