/// Sizes for people: `512 bytes`, `4.0 KiB`, `574.8 MiB`: binary units (a KiB is 1024 bytes),
/// one decimal, and the next unit once a size rounds to 1024.0 of one.
enum ByteCount {
    static func text(_ bytes: UInt64) -> String {
        if bytes < 1024 { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
        var unit = 0
        var scale: UInt64 = 1024
        while true {
            // Tenths, rounded half up, in two parts so that no product overflows (scale is at
            // most 2^60).
            let tenths = bytes / scale * 10 + (bytes % scale * 10 + scale / 2) / scale
            if tenths < 10_240 || unit + 1 == units.count { return "\(tenths / 10).\(tenths % 10) \(units[unit])" }
            scale *= 1024
            unit += 1
        }
    }
}
