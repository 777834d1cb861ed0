/// The rows a statement returned, every value in PostgreSQL's text format (nil for NULL).
public struct PostgresRows: Sendable, Equatable {
    public var columns: [String]
    public var rows: [[String?]]
    /// The count of a command that returns no rows (`INSERT 0 3` gives 3), else 0.
    public var affected: Int

    public init(columns: [String], rows: [[String?]], affected: Int = 0) {
        self.columns = columns
        self.rows = rows
        self.affected = affected
    }
}
