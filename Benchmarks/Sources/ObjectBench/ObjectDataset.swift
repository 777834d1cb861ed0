import BenchSupport
import Foundation

/// The seeded `User`/`Team` data every engine loads, generated once per run so that all engines
/// see identical rows. Users link to one of `teamCount` teams.
final class ObjectDataset: Sendable {
    struct User: Sendable {
        let uid: String
        let name: String
        let age: Int64
        let score: Double
        /// Seconds since 2001-01-01 (what `Date` holds).
        let signedUpAt: Double
        let email: String?
        let team: Int
    }

    let users: [User]
    let teamIDs: [String]
    let teamNames: [String]
    static let teamCount = 1_000

    /// Syllables for names: 512 first names x 1,024 last names, so names repeat rarely at 1M.
    private static let syllables = ["ka", "ri", "mo", "to", "na", "se", "lu", "vi", "an", "el", "or", "in",
                                    "ba", "de", "go", "zu", "pe", "xa", "yo", "ha", "ce", "fi", "ju", "qu",
                                    "wa", "no", "mi", "ra", "so", "te", "la", "be"]

    private static func word(_ r: UInt64, syllableCount: Int) -> String {
        var s = ""
        var x = r
        for i in 0..<syllableCount {
            let syl = syllables[Int(x & 31)]
            s += i == 0 ? syl.prefix(1).uppercased() + syl.dropFirst() : syl
            x >>= 5
        }
        return s
    }

    init(count: Int, seed: UInt64) {
        teamIDs = (0..<Self.teamCount).map { String(format: "t%04d", $0) }
        teamNames = (0..<Self.teamCount).map { "Team \(Self.word(UInt64($0) &* 0x9E37_79B9, syllableCount: 3)) \($0)" }
        var users: [User] = []
        users.reserveCapacity(count)
        for i in 0..<count { users.append(Self.user(i, seed: seed)) }
        self.users = users
    }

    /// User `i` of the data set seeded `seed`: a pure function of both, so a run too large to
    /// hold in memory can generate users as it inserts them.
    static func user(_ i: Int, seed: UInt64) -> User {
        var rng = SplitMix64(seed: seed &+ UInt64(i) &* 0x9E37_79B9_7F4A_7C15)
        // A bijective mix of the index: unique, random-looking 16-hex-digit keys.
        var mixer = SplitMix64(seed: UInt64(i) ^ 0x5EED)
        let uid = String(mixer.next(), radix: 16).leftPadded(to: 16)
        let r = rng.next()
        let first = word(r & 0x1FF, syllableCount: 2) + word((r >> 9) & 0x1, syllableCount: 1).lowercased()
        let last = word((r >> 10) & 0x3FF, syllableCount: 2)
        let name = first + " " + last
        let age = Int64(18 + (r >> 20) % 63)
        let score = Double((r >> 27) % 10_000_000) / 100_000
        let signedUpAt = 600_000_000 + Double((r >> 30) % 200_000_000)
        let email: String? = (r >> 60) % 10 < 7 ? "\(first.lowercased()).\(last.lowercased())\(i)@example.com" : nil
        let team = Int(rng.next() % UInt64(teamCount))
        return User(uid: uid, name: name, age: age, score: score, signedUpAt: signedUpAt, email: email, team: team)
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}


/// Folds a looked-up user's three properties into a checksum identical across engines.
@inline(__always)
func foldUser(_ sum: inout UInt64, name: String, age: Int64, score: Double) {
    sum = sum &* 31 &+ UInt64(name.utf8.count) &+ UInt64(bitPattern: age) &* 7 &+ score.bitPattern
}
