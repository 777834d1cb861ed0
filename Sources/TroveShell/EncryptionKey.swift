/// A store's 64-byte encryption key, read from a `--key-file` (or a `.backup` key file, or
/// typed at the prompt).
///
/// A key file holds the raw 64 bytes, or 128 hexadecimal digits; blanks and line ends
/// around the digits are ignored, so `openssl rand -hex 64 > key` makes one.
/// Nothing here ever prints the key: errors name the file and its length only.
struct EncryptionKey {
    static let length = 64

    let bytes: [UInt8]

    /// The key in `contents`, which came from `source` (named in errors).
    init(contents: [UInt8], source: String) throws(UsageError) {
        if contents.count == Self.length {
            bytes = contents
            return
        }
        let digits = contents.filter { !Self.isBlank($0) }
        guard digits.count == 2 * Self.length, let key = Self.hex(digits) else {
            throw UsageError("\(source) holds no encryption key: a key is \(Self.length) raw bytes"
                + " or \(2 * Self.length) hexadecimal digits (it holds \(contents.count) bytes)")
        }
        bytes = key
    }

    /// Reads the key file at `path`.
    init(file path: String) throws(UsageError) {
        let contents: [UInt8]
        do { contents = try FileInput.readAll(path) } catch {
            throw UsageError("cannot read key file '\(path)': \(error.message)")
        }
        try self.init(contents: contents, source: "key file '\(path)'")
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func hex(_ digits: [UInt8]) -> [UInt8]? {
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x41...0x46: c - 0x41 + 10
            case 0x61...0x66: c - 0x61 + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let high = value(digits[i]), let low = value(digits[i + 1]) else { return nil }
            out.append(high << 4 | low)
            i += 2
        }
        return out
    }
}
