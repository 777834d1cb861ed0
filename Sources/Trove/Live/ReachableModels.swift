extension Schema {
    /// `model` and every model reachable from it through links, lists and linkingObjects: all
    /// that a predicate, a sort key or a closure reading an object of `model` can depend on.
    func modelsReachable(from model: String) -> Set<String> {
        var seen: Set<String> = [model]
        var stack = [model]
        while let name = stack.popLast() {
            for p in self[name]?.properties ?? [] {
                if let target = p.objectType, seen.insert(target).inserted { stack.append(target) }
            }
        }
        return seen
    }
}
