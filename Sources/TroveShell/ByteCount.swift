/// Sizes for people: `512 bytes`, `4.0 KiB`, `574.8 MiB`, as `ls -lh` and `du -h` print them
/// (binary units), with one decimal.
enum ByteCount {
    static func text(_ bytes: UInt64) -> String {
        if bytes < 1024 { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
        var unit = 0
        var scale: UInt64 = 1024
        while unit + 1 < units.count, bytes / scale >= 1024 {
            scale *= 1024
            unit += 1
        }
        // Tenths, rounded half up; 1023.95 KiB rounds to 1024.0 KiB rather than changing unit.
        // In two parts, so that no product overflows (scale is at most 2^60).
        let tenths = bytes / scale * 10 + (bytes % scale * 10 + scale / 2) / scale
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
