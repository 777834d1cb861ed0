/// Groups changes into one atomic save.
///
/// Between ``beginWrite()`` and ``endWrite()``, entities may be added and removed; changes to
/// the properties of any entity the repository handed out (before or during the write) are
/// saved by the next ``endWrite()``, with the additions and removals, all or nothing.
public protocol RepoSavingType {
    /// Starts a write; throws ``RepositoryError/alreadyInWrite`` inside one.
    func beginWrite() throws
    /// Saves every change since the last save and ends the write. When saving fails the write
    /// ends all the same and the changes of the entities the caller still holds stay pending
    /// for the next one; an added entity nobody holds any more is forgotten.
    func endWrite() throws
}
