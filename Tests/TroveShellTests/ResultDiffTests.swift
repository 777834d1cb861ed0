import Testing
import Trove
@testable import TroveShell

/// `watch`'s diff: the events, applied in order to the old results, give the new ones.
@Suite struct ResultDiffTests {
    static func entries(_ keys: [UInt64], version: Int64 = 0) -> [ResultDiff.Entry] {
        keys.map { ResultDiff.Entry(reference: ObjectReference(model: "M", key: $0), object: ["k": .int(Int64($0)), "v": .int(version)]) }
    }

    /// Applies events to keys, as a consumer of `watch` would.
    static func replay(_ events: [JSONObject], on old: [ResultDiff.Entry]) -> [JSONObject] {
        var list = old.map(\.object)
        for event in events {
            switch event["op"] {
            case "delete": if case .int(let i)? = event["index"] { list.remove(at: Int(i)) }
            case "insert": if case .int(let i)? = event["index"], case .object(let o)? = event["object"] { list.insert(o, at: Int(i)) }
            case "move":
                if case .int(let from)? = event["from"], case .int(let to)? = event["to"] {
                    list.insert(list.remove(at: Int(from)), at: Int(to))
                }
            case "update": if case .int(let i)? = event["index"], case .object(let o)? = event["object"] { list[Int(i)] = o }
            default: Issue.record("unknown event \(event)")
            }
        }
        return list
    }

    /// A value whose spelling alone changed (`é` to `e` + U+0301, one text to `String`'s `==`)
    /// changed: the object holds other bytes, and `watch` says so.
    @Test func aChangeOfSpellingAloneIsAnUpdate() {
        let reference = ObjectReference(model: "M", key: 1)
        let old = [ResultDiff.Entry(reference: reference, object: ["s": "\u{E9}", "l": .array(["\u{E9}"])])]
        for object: JSONObject in [["s": "e\u{301}", "l": .array(["\u{E9}"])], ["s": "\u{E9}", "l": .array(["e\u{301}"])]] {
            let events = ResultDiff.events(from: old, to: [ResultDiff.Entry(reference: reference, object: object)])
            #expect(events.count == 1 && events.first?["op"] == "update", "\(events)")
        }
        #expect(ResultDiff.events(from: old, to: old).isEmpty)
    }

    @Test func eventsReplayToTheNewResults() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<500 {
            let old = Self.entries(Array((0..<UInt64.random(in: 0...8, using: &generator)).shuffled(using: &generator)))
            var newKeys = Array(Set((0..<UInt64.random(in: 0...8, using: &generator)).map { _ in UInt64.random(in: 0...10, using: &generator) }))
            newKeys.shuffle(using: &generator)
            let changed = Set(newKeys.filter { _ in Bool.random(using: &generator) })
            let new = newKeys.map { key in Self.entries([key], version: changed.contains(key) ? 1 : 0)[0] }
            let events = ResultDiff.events(from: old, to: new)
            #expect(Self.replay(events, on: old) == new.map(\.object), "round \(round)")
        }
    }

    @Test func noChangeNoEvents() {
        let same = Self.entries([3, 1, 2])
        #expect(ResultDiff.events(from: same, to: same).isEmpty)
    }

    @Test func aMoveIsOneEvent() {
        let events = ResultDiff.events(from: Self.entries([1, 2, 3]), to: Self.entries([3, 1, 2]))
        #expect(events == [["op": "move", "from": 2, "to": 0]])
    }
}
