import Trove

/// Entry point of the `trove` command-line shell.
public enum Shell {
    /// Runs the shell with the given arguments (without the program name) and returns the exit status.
    public static func main(arguments: [String]) -> Int32 {
        if arguments.contains("--version") {
            print("trove \(TroveInfo.version)")
            return 0
        }
        return 0
    }
}
