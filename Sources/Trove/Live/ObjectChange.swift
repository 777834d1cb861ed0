/// What a commit did to an observed object.
public enum ObjectChange: Sendable, Hashable {
    /// These stored properties changed value, in schema order.
    case changed([PropertyChange])
    /// The object was deleted; nothing more is reported.
    case deleted
}
