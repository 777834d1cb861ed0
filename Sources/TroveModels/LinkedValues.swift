/// The values of one Swift type that links in a read-only snapshot pointed at, by object key:
/// a snapshot's objects never change, so a value linked from many objects (each user's team)
/// is read once. The snapshot keeps one per type (``_ModelReader/linkedValues(_:)``).
///
/// A value answers only reads at the link depth it was read at or above: a read that
/// succeeded at one depth succeeds at any shallower one, while a deeper one may pass the link
/// depth limit, so the cache never reads what a fresh read would refuse.
///
/// A type whose values hold a class instance (a struct linking to a class model) gets one that
/// keeps nothing: the instance would be shared by every value read after.
///
/// Usable from inlinable code, so that a lookup runs specialized for the caller's model type.
/// A snapshot is used from one thread, so its values are read and written without checks.
@usableFromInline
final class LinkedValues<Value> {
    @usableFromInline @exclusivity(unchecked) var values: [UInt64: Value] = [:]
    /// The depth each value was read at, kept only where it is more than one link: every
    /// read is at least one link deep, so a value without an entry was read at depth 1.
    @usableFromInline @exclusivity(unchecked) var depths: [UInt64: Int] = [:]

    /// Whether it keeps values at all.
    let keeps: Bool

    @usableFromInline init(keeping: Bool) { keeps = keeping }

    /// Enough for the objects a loop links to; beyond it a value is read each time.
    static var capacity: Int { 4096 }

    /// The value of the object `key` read `depth` links deep, if kept.
    @inlinable
    func value(for key: UInt64, depth: Int) -> Value? {
        guard let value = values[key], depth == 1 || depths[key, default: 1] >= depth else { return nil }
        return value
    }

    /// Keeps `value`, read `depth` links deep, while there is room.
    func keep(_ value: Value, for key: UInt64, depth: Int) {
        guard keeps, values.count < Self.capacity || values[key] != nil else { return }
        values[key] = value
        // Read again only where a deeper read needed it: the depth grows.
        if depth > 1 { depths[key] = depth }
    }
}
