import Trove
import TrovePostgres

// `.copy TARGET [--replace]` on each backend: a store copies into a PostgreSQL database, a
// database into a store file (see `StoreCopy`).

extension TroveBackend {
    public func copy(to target: String, replacing: Bool) throws {
        guard PostgresConnection.isURL(target) else {
            throw StatementError(".copy from a store takes a postgres:// or postgresql:// URL; .backup FILE copies a store into a file")
        }
        _ = UserLocale.isUTF8 // libpq's client_encoding=auto reads LC_CTYPE
        do { try StoreCopy.copy(store, toDatabase: target, replacing: replacing) } catch let error as PostgresError {
            throw StatementError("cannot copy: \(error.message)")
        }
    }
}

extension PostgresBackend {
    public func copy(to target: String, replacing: Bool) throws {
        guard !PostgresConnection.isURL(target) else {
            throw StatementError(".copy from PostgreSQL takes a store FILE; between two databases, use pg_dump")
        }
        do { try StoreCopy.copy(database: store.connection, toStoreAt: target, replacing: replacing) } catch let error as PostgresError {
            throw StatementError("cannot copy: \(error.message)")
        }
    }
}
