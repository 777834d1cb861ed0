import Trove

extension MigrationLosses {
    /// The shell's warning of what an open (`--schema`, `.open`, `.apply-schema`) discarded.
    var warning: String {
        let items = losses.map { loss in
            switch loss {
            case .model(let model, let objects):
                "model '\(model)' (\(objects) object\(objects == 1 ? "" : "s"))"
            case .property(let model, let property):
                "property '\(model).\(property)'"
            case .values(let model, let property, let from, let to):
                "the values of '\(model).\(property)' (\(from) to \(to): each is its default now)"
            case .nulls(let model, let property, let objects):
                "the nulls of '\(model).\(property)' (\(objects) object\(objects == 1 ? "" : "s"), made required: each is its default now)"
            }
        }
        switch cause {
        case .migration(let version):
            return "the migration to schemaVersion \(version) dropped " + items.joined(separator: ", ")
        case .reset(let reason):
            let deleted = items.isEmpty ? "nothing (it held no models)" : items.joined(separator: ", ")
            return "--reset-on-migration wiped the store, deleting \(deleted), since \(reason)"
        }
    }
}
