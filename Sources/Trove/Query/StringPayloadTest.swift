/// `==`, `!=`, `BEGINSWITH`, `ENDSWITH` or `CONTAINS` against a string constant, on a stored
/// string payload (a 0x01 byte, then UTF-8; empty is null).
///
/// Plain ASCII text (no byte >= 0x80, no CR) is decided on its bytes by an ``ASCIINeedle``;
/// the rest folds (`FoldedString`), whose semantics the byte tests reproduce. A struct, so a
/// scan calls it without going through a closure (`StringSlotTest`).
struct StringPayloadTest {
    enum Kind { case equal, beginsWith, endsWith, contains }

    let kind: Kind
    /// `!=`: the negation of `==` (so null passes).
    let negated: Bool
    let needle: FoldedString
    let options: StringComparisonOptions
    /// The folded needle's bytes, when they are plain ASCII: text that is plain ASCII too is
    /// decided on its bytes. ASCII bytes stand for characters except around CR LF, which is
    /// one character.
    let ascii: ASCIINeedle?

    /// `op` is one of `==`, `!=`, `BEGINSWITH`, `ENDSWITH`, `CONTAINS`.
    init(_ op: BoundOperator, _ options: StringComparisonOptions, _ constant: String) {
        switch op {
        case .beginsWith: kind = .beginsWith
        case .endsWith: kind = .endsWith
        case .contains: kind = .contains
        default: kind = .equal
        }
        negated = op == .notEqual
        self.options = options
        needle = FoldedString(constant, options: options)
        let folded = Array(needle.value.utf8)
        ascii = folded.allSatisfy { $0 < 0x80 && $0 != 0x0D }
            ? ASCIINeedle(folded, lower: options.contains(.caseInsensitive)) : nil
    }

    @inline(__always)
    func matches(_ payload: UnsafeRawBufferPointer) -> Bool {
        negated ? !test(payload) : test(payload)
    }

    @inline(__always)
    private func test(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard payload.count > 0 else { return false }
        let text = payload.baseAddress! + 1, count = payload.count - 1
        if let ascii {
            let decided = switch kind {
            case .contains: ascii.isContained(in: text, count)
            case .beginsWith: ascii.isPrefix(of: text, count)
            case .endsWith: ascii.isSuffix(of: text, count)
            case .equal: ascii.equals(text, count)
            }
            if let decided { return decided }
        } else if PayloadMatcher.isPlainASCII(text, count) {
            // An ASCII string, folded, stays ASCII: it cannot hold a needle that is not.
            return false
        }
        return folding(payload)
    }

    @inline(never)
    private func folding(_ payload: UnsafeRawBufferPointer) -> Bool {
        let value = FoldedString(PayloadMatcher.string(payload), options: options)
        return switch kind {
        case .beginsWith: value.hasPrefix(needle)
        case .endsWith: value.hasSuffix(needle)
        case .contains: value.contains(needle)
        case .equal: value == needle
        }
    }
}

/// A `StringPayloadTest` on one string property of the object itself: what a scan filtered by
/// `name CONTAINS[c] $0` runs per record, with no closure call. A class, so the scan's loop
/// holds one reference rather than copying (and retaining) the test's parts per record.
final class StringSlotTest {
    let slot: Int
    /// What a record written before the property existed holds (its default's payload).
    let missing: [UInt8]
    let test: StringPayloadTest

    /// The test of `predicate` when it is one such comparison, else nil.
    init?(only predicate: BoundPredicate) {
        guard case .path(let c) = predicate, c.path.isDirect, !c.path.isToMany, c.path.kind == .string,
              case .string(let constant) = c.constant else { return nil }
        switch c.op {
        case .equal, .notEqual, .beginsWith, .endsWith, .contains: break
        default: return nil
        }
        slot = c.path.property.id
        missing = KeyPathReader.defaultPayload(c.path.property)
        test = StringPayloadTest(c.op, c.options, constant)
    }

    @inline(__always)
    func matches(_ record: RecordView) -> Bool {
        if let bytes = record.slot(slot) { return test.matches(bytes) }
        return missing.withUnsafeBytes { test.matches($0) }
    }
}

/// A folded ASCII needle (no CR) in stable memory, matched against stored UTF-8 bytes. Each
/// match answers nil when the text is not plain ASCII, for the folding path to decide.
final class ASCIINeedle {
    private let bytes: UnsafeMutablePointer<UInt8>
    private let count: Int
    private let lower: Bool
    /// The first byte, and what a text byte is ORed with before it is compared to it: 0x20 when
    /// `first` is a letter under `[c]`, else 0. For ASCII, `b | 0x20` equals a lower-case
    /// letter exactly when `b` is that letter in either case, so one comparison covers both.
    private let first: UInt8, firstFold: UInt8
    /// `first` and `firstFold` in every byte of a word.
    private let firstWord: UInt64, firstFoldWord: UInt64
    /// The same for the needle's second byte: a candidate must match both, which keeps a
    /// common first letter from making every other byte a candidate.
    private let secondWord: UInt64, secondFoldWord: UInt64
    /// The bytes that pass the second byte's test anyway: a word's last (its next byte is in
    /// the next word), or all of them for a one-byte needle.
    private let secondPass: UInt64

    init(_ folded: [UInt8], lower: Bool) {
        count = folded.count
        bytes = .allocate(capacity: max(count, 1))
        bytes.initialize(from: folded, count: count)
        self.lower = lower
        let head = folded.first ?? 0
        // Folded text holds no upper case: a needle starting with one matches nothing, and
        // 0x80 is not in plain ASCII.
        first = lower && head &- 0x41 < 26 ? 0x80 : head
        func foldBit(_ b: UInt8) -> UInt8 { lower && b &- 0x61 < 26 ? 0x20 : 0 }
        let everyByte: UInt64 = 0x0101_0101_0101_0101
        firstFold = foldBit(first)
        firstWord = UInt64(first) &* everyByte
        firstFoldWord = UInt64(firstFold) &* everyByte
        // A one-byte needle has no second byte: every byte passes that test.
        secondPass = count >= 2 ? 0x8000_0000_0000_0000 : 0x8080_8080_8080_8080
        let second = count >= 2 ? folded[1] : 0
        secondWord = UInt64(second) &* everyByte
        secondFoldWord = UInt64(foldBit(second)) &* everyByte
    }

    deinit { bytes.deallocate() }

    @inline(__always)
    private func fold(_ b: UInt8) -> UInt8 { lower && b &- 0x41 < 26 ? b | 0x20 : b }

    /// Whether the needle's bytes from `from` on equal the text's at `p + from`, folded.
    @inline(__always)
    private func matches(at p: UnsafeRawPointer, from: Int) -> Bool {
        var i = from
        while i < count {
            if fold(p.load(fromByteOffset: i, as: UInt8.self)) != bytes[i] { return false }
            i &+= 1
        }
        return true
    }

    /// Checks and searches eight bytes at a time: a word's bytes equal to the needle's first
    /// byte (either case), followed by its second, are candidates, and only candidates are
    /// compared in full.
    func isContained(in t: UnsafeRawPointer, _ m: Int) -> Bool? {
        if m < 8 { return isContained(inShort: t, m) }
        let last = m &- count
        var found = count == 0
        var i = 0
        while true {
            // The last word ends at the text's end, overlapping the one before it.
            let start = Swift.min(i, m &- 8)
            let w = UInt64(littleEndian: t.loadUnaligned(fromByteOffset: start, as: UInt64.self))
            if !PayloadMatcher.isPlainASCII(w) { return nil }
            if !found && last >= 0 {
                // Bytes whose next byte matches the needle's second.
                let seconds = Self.zeroBytes((w | secondFoldWord) ^ secondWord) >> 8 | secondPass
                var candidates = Self.zeroBytes((w | firstFoldWord) ^ firstWord) & seconds & (~0 << ((i &- start) &* 8))
                while candidates != 0 {
                    let at = start &+ candidates.trailingZeroBitCount >> 3
                    if at > last { break }
                    if matches(at: t + at, from: 0) { found = true; break }
                    candidates &= candidates &- 1
                }
            }
            i = start &+ 8
            if i >= m { return found }
        }
    }

    private func isContained(inShort t: UnsafeRawPointer, _ m: Int) -> Bool? {
        guard PayloadMatcher.isPlainASCII(t, m) else { return nil }
        if count == 0 { return true }
        guard count <= m else { return false }
        let last = m &- count
        var i = 0
        while i <= last {
            let b = t.load(fromByteOffset: i, as: UInt8.self)
            if (b | firstFold) == first && matches(at: t + i, from: 1) { return true }
            i &+= 1
        }
        return false
    }

    /// The high bit of each byte of `x` that is zero, and maybe of a 0x01 byte above a zero
    /// byte (the borrow): a superset, so every candidate it gives is compared in full, first
    /// byte included. (Comparing from the second byte made "statue" contain "te".) An exact
    /// test cost 7% more instructions in a `CONTAINS` scan than checking the rare extra one.
    @inline(__always)
    private static func zeroBytes(_ x: UInt64) -> UInt64 {
        (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
    }

    func isPrefix(of t: UnsafeRawPointer, _ m: Int) -> Bool? {
        guard PayloadMatcher.isPlainASCII(t, m) else { return nil }
        return count <= m && matches(at: t, from: 0)
    }

    func isSuffix(of t: UnsafeRawPointer, _ m: Int) -> Bool? {
        guard PayloadMatcher.isPlainASCII(t, m) else { return nil }
        return count <= m && matches(at: t + (m - count), from: 0)
    }

    func equals(_ t: UnsafeRawPointer, _ m: Int) -> Bool? {
        guard PayloadMatcher.isPlainASCII(t, m) else { return nil }
        return count == m && matches(at: t, from: 0)
    }
}
