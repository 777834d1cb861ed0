import Foundation

public enum FileSize {
    /// The summed sizes of the files that exist among `paths`.
    public static func of(_ paths: [String]) throws -> UInt64 {
        var total: UInt64 = 0
        for path in paths where FileManager.default.fileExists(atPath: path) {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            total += (attributes[.size] as? NSNumber)?.uint64Value ?? 0
        }
        return total
    }
}
