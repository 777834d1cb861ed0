#if canImport(Glibc)
import Glibc
#endif

/// The statements read before the first one typed, as sqlite3 reads `~/.sqliterc`: where
/// they come from, and when.
enum InitFile {
    /// The file to read, or nil for none. `--no-init` reads none; `--init FILE` reads FILE
    /// in every mode, since it was asked for. Otherwise only the interactive shell reads one,
    /// so that scripts do not depend on the user's settings: `$TROVE_INIT` (empty: none),
    /// else `~/.troverc`, and only if it exists.
    static func path(option: String?, skip: Bool, interactive: Bool, environment: [String: String]) -> String? {
        if skip { return nil }
        if let option { return option }
        guard interactive else { return nil }
        let path: String
        if let chosen = environment["TROVE_INIT"] {
            guard !chosen.isEmpty else { return nil }
            path = chosen
        } else if let home = environment["HOME"], !home.isEmpty {
            path = home + "/.troverc"
        } else {
            return nil
        }
        return access(path, F_OK) == 0 ? path : nil
    }
}
