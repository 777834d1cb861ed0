import TroveStorage

/// The object database layer. See `Store`.
public enum TroveInfo {
    /// The version printed by `trove --version`.
    public static let version = "0.1.0"
}
