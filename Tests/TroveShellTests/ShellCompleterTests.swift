import Testing
@testable import TroveShell

@Suite struct ShellCompleterTests {
    let completer = ShellCompleter(models: { (try? EchoBackend().models()) ?? [] })

    func complete(_ line: String) -> [String] {
        completer.complete(line: line, cursor: line.utf8.count).candidates
    }

    @Test func dotCommandsCompleteAtLineStart() {
        #expect(complete(".sc") == [".schema"])
        #expect(complete(".mo") == [".mode", ".models"])
    }

    @Test func firstWordCompletesKeywordsAndModels() {
        #expect(complete("co") == ["commit", "count"])
        #expect(complete("Pe") == ["Person"])
        #expect(complete("per") == ["Person"])
    }

    @Test func modelNamesFollowStatementKeywords() {
        #expect(complete("count D") == ["Dog"])
        #expect(complete("get ") == ["Dog", "Person"])
        #expect(complete("begin ") == [])
    }

    @Test func propertiesCompleteInsideAStatement() {
        #expect(complete("Person where na") == ["name"])
        #expect(complete("count Person where (a") == ["age", "ALL", "AND", "ANY", "ASC"])
        #expect(complete("Person where age > 3 SORT(na") == ["name"])
    }

    /// Names are made of Unicode letters (schema format): completion reads them whole.
    @Test func namesWithNonASCIILettersComplete() {
        let models = [ModelDescription(name: "Café", primaryKey: "id", properties: [
            PropertyDescription(name: "id", type: "int", isIndexed: true),
            PropertyDescription(name: "größe", type: "int?"),
            PropertyDescription(name: "grün", type: "bool"),
            PropertyDescription(name: "nächstes", type: "Café?", objectType: "Café"),
        ])]
        let completer = ShellCompleter(models: { models })
        func complete(_ line: String) -> [String] { completer.complete(line: line, cursor: line.utf8.count).candidates }
        #expect(complete("count Ca") == ["Café"])
        #expect(complete("Café where grö") == ["größe"])
        #expect(complete("Café where größe > 1 AND(gr") == ["größe", "grün", "GROUP("])
        #expect(complete("Café where nächstes.grü") == ["nächstes.grün"])
        #expect(complete("sum Café.grö") == ["Café.größe"])
    }

    @Test func keyPathsFollowLinks() {
        #expect(complete("Person where bestFriend.na") == ["bestFriend.name"])
        #expect(complete("Person where dogs.") == ["dogs.name", "dogs.owners"])
        #expect(complete("Person where dogs.owners.a") == ["dogs.owners.age"])
        #expect(complete("Person where age.x") == [])
    }

    /// After a SELECT item its name (`AS`) is all that can come before `,` or `)`; the name
    /// itself is the user's.
    @Test func aSelectItemIsFollowedByAS() {
        #expect(complete("Person SELECT(name ") == ["AS"])
        #expect(complete("Person SELECT(name a") == ["AS"])
        #expect(complete("Person where age > 3 SORT(age) select(bestFriend.name ") == ["AS"])
        #expect(complete("Person GROUP(age) SELECT(age, @avg.age ") == ["AS"])
        #expect(complete("Person SELECT(name AS n, dogs.@count ") == ["AS"])
        #expect(complete("Person SELECT(name AS ") == [])
        #expect(complete("Person SELECT(name AS n ") == [])
        #expect(complete("Person SELECT(name, na") == ["name"])
        #expect(complete("Person where name == 'SELECT(x ' AND a") == ["age", "ALL", "AND", "ANY", "ASC"])
        #expect(complete("Person SELECT(name) SORT(a") == ["age", "ALL", "AND", "ANY", "ASC"])
    }

    @Test func questionsCompleteTheirClausesAggregatesAndTheKeyPathsInsideThem() {
        #expect(complete("Person SE") == ["SELECT("])
        #expect(complete("Person OFF") == ["OFFSET("])
        #expect(complete("Person GROUP(na") == ["name"])
        #expect(complete("Person GROUP(age) SELECT(@a") == ["@avg."])
        #expect(complete("Person GROUP(age) SELECT(@avg.a") == ["@avg.age"])
        #expect(complete("Person SELECT(dogs.@") == ["dogs.@avg.", "dogs.@count", "dogs.@max.", "dogs.@min.", "dogs.@sum."])
        #expect(complete("Person SELECT(dogs.@avg.n") == ["dogs.@avg.name"])
        #expect(complete("Person where dogs.@count.") == [])
        #expect(complete("sum Person.a") == ["Person.age"])
    }

    /// After `sum`, `avg`, `min` or `max` the model ends in `.` (no space: its key path
    /// follows), and the key path completes after it, or after a lone `.`.
    @Test func anAggregatesModelCompletesTowardsItsKeyPath() {
        #expect(complete("avg P") == ["Person."])
        #expect(complete("max ") == ["Dog.", "Person."])
        #expect(complete("avg Person.a") == ["Person.age"])
        #expect(complete("min Person .a") == [".age"])
        #expect(complete("sum Person .bestFriend.a") == [".bestFriend.age"])
        #expect(complete("avg Person.age where na") == ["name"])
        #expect(complete("count P") == ["Person"])
    }

    @Test func dotCommandArgumentsComplete() {
        #expect(complete(".mode j") == ["json", "jsonl"])
        #expect(complete(".schema P") == ["Person"])
        #expect(complete(".timer o") == ["off", "on"])
        #expect(complete(".mode m") == ["markdown"])
        #expect(complete(".param ") == ["clear", "list", "set"])
        #expect(complete(".nu") == [".nullvalue"])
        #expect(complete(".o") == [".once", ".open", ".output"])
    }

    @Test func completionStartsAfterTheLastSemicolon() {
        let c = completer.complete(line: "count Person; cou", cursor: 17)
        #expect(c.candidates == ["count"])
        #expect(c.start == 14)
    }

    @Test func fileNamesCompleteForRead() {
        let c = complete(".read /us")
        #expect(c == ["/usr/"])
    }

    @Test func commonPrefixOfCandidates() {
        #expect(Completion.commonPrefix(["json", "jsonl"]) == "json")
        #expect(Completion.commonPrefix(["a", "b"]) == "")
    }
}
