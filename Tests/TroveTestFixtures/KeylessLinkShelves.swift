import Trove

/// Shelves (with a primary key) linking boxes (without one), alone, in a list and through a
/// box's own link: the schema and objects the keyless-link rows suites of a store
/// (TroveTests) and of PostgreSQL (TrovePostgresTests) both query.
public enum KeylessLinkShelves {
    public static let schema = try! Schema(jsonData: Array(#"""
        {"models": [
          {"name": "Shelf", "primaryKey": "id", "properties": {"id": "int", "top": "Box?", "boxes": "Box[]", "next": "Shelf?"}},
          {"name": "Box", "properties": {"label": "string", "inner": "Box?"}}
        ]}
        """#.utf8), fileName: "shelves")

    public static let shelves: [[String: Value]] = [
        ["id": 1, "top": .object(["label": "a", "inner": .object(["label": "b"])])],
        ["id": 2, "next": 1, "boxes": [.object(["label": "c"]), .object(["label": "d", "inner": .object(["label": "e"])])]],
    ]
}
