import Testing
@testable import Trove

@Suite("Query parser")
struct QueryParserTests {
    private typealias P = QueryPredicate
    private typealias E = QueryExpression

    @Test(arguments: [
        ("==", ComparisonOperator.equal), ("=", .equal), ("!=", .notEqual), ("<>", .notEqual),
        ("<", .lessThan), ("<=", .lessThanOrEqual), ("=<", .lessThanOrEqual), (">", .greaterThan),
        (">=", .greaterThanOrEqual), ("=>", .greaterThanOrEqual), ("BEGINSWITH", .beginsWith),
        ("endswith", .endsWith), ("CONTAINS", .contains), ("LIKE", .like), ("MATCHES", .matches), ("IN", .in),
    ])
    func everyComparisonOperator(text: String, op: ComparisonOperator) throws {
        let comparison = try QueryTest.comparison("name \(text) 'x'")
        #expect(comparison.op == op)
        #expect(comparison.left == .keyPath("name"))
        #expect(comparison.right == .string("x"))
        #expect(comparison.quantifier == nil)
        #expect(comparison.options == [])
    }

    @Test func modifiersAttachToTheOperator() throws {
        #expect(try QueryTest.comparison("name ==[c] 'x'").options == .caseInsensitive)
        #expect(try QueryTest.comparison("name BEGINSWITH[d] 'x'").options == .diacriticInsensitive)
        #expect(try QueryTest.comparison("name CONTAINS[cd] 'x'").options == [.caseInsensitive, .diacriticInsensitive])
        #expect(try QueryTest.comparison("name IN[c] {'a', 'b'}").options == .caseInsensitive)
        #expect(try QueryTest.comparison("name MATCHES[c] 'x+'").options == .caseInsensitive)
        let comparison = try QueryTest.comparison("name LIKE[c] 'x'")
        #expect(comparison.operatorRange.start.column == 6)
        #expect(comparison.operatorRange.end.column == 13)
    }

    @Test func literalForms() throws {
        #expect(try QueryTest.comparison("a == 42").right == .int(42))
        #expect(try QueryTest.comparison("a == -42").right == .int(-42))
        #expect(try QueryTest.comparison("a == 0x2A").right == .int(42))
        #expect(try QueryTest.comparison("a == 4.5").right == .double(4.5))
        #expect(try QueryTest.comparison("a == 1e3").right == .number("1e3"))
        #expect(try QueryTest.comparison("a == 'x'").right == .string("x"))
        #expect(try QueryTest.comparison("a == \"x\"").right == .string("x"))
        for word in ["true", "TRUE", "YES", "yes"] {
            #expect(try QueryTest.comparison("a == \(word)").right == .bool(true))
        }
        for word in ["false", "FALSE", "NO", "no"] {
            #expect(try QueryTest.comparison("a == \(word)").right == .bool(false))
        }
        #expect(try QueryTest.comparison("a == nil").right == .null)
        #expect(try QueryTest.comparison("a == NULL").right == .null)
        #expect(try QueryTest.comparison("a IN {1, 'two', 3.5, nil, true, $0}").right
            == .list([.int(1), .string("two"), .double(3.5), .null, .bool(true), .parameter(0)]))
        #expect(try QueryTest.comparison("a IN {}").right == .list([]))
    }

    @Test func inTakesAListLiteralOrAListKeyPath() throws {
        let literal = try QueryTest.comparison("name IN {'a', 'b'}")
        #expect(literal.op == .in)
        #expect(literal.right == .list([.string("a"), .string("b")]))
        let path = try QueryTest.comparison("'tag' IN tags")
        #expect(path.left == .string("tag"))
        #expect(path.right == .keyPath("tags"))
        #expect(try QueryTest.comparison("$0 IN owner.nicknames").right == .keyPath("owner.nicknames"))
    }

    @Test func betweenTakesTwoBounds() throws {
        let predicate = try QueryTest.predicate("age BETWEEN {18, $1}")
        #expect(predicate == P(.between(.init(.keyPath("age"), lower: .int(18), upper: .parameter(1)))))
        #expect(predicate.range.end.column == 21)
        let quantified = try QueryTest.predicate("ANY scores between {1.5, 2}")
        #expect(quantified == P(.between(.init(quantifier: .any, .keyPath("scores"), lower: .double(1.5), upper: .int(2)))))
    }

    @Test func reversedComparisonsKeepBothSides() throws {
        let comparison = try QueryTest.comparison("5 < age")
        #expect(comparison.left == .int(5))
        #expect(comparison.op == .lessThan)
        #expect(comparison.right == .keyPath("age"))
    }

    @Test func keyPathsAndParameters() throws {
        let comparison = try QueryTest.comparison("owner.address.city == $3")
        #expect(comparison.left.keyPath?.names == ["owner", "address", "city"])
        #expect(comparison.right == .parameter(3))
        #expect(comparison.left.keyPath?.components[2].range.start.column == 15)
    }

    @Test func contextualKeywordsAndEscapesNameProperties() throws {
        #expect(try QueryTest.comparison("sort == 1").left == .keyPath("sort"))
        #expect(try QueryTest.comparison("limit > desc").right == .keyPath("desc"))
        #expect(try QueryTest.comparison("#in == 1").left == .keyPath("in"))
        #expect(try QueryTest.comparison("owner.in == 1").left == .keyPath("owner.in"))
        #expect(try QueryTest.comparison("owner.#ANY == 1").left == .keyPath("owner.ANY"))
    }

    @Test func booleanConstants() throws {
        #expect(try QueryTest.predicate("TRUEPREDICATE") == .truePredicate)
        #expect(try QueryTest.predicate("falsepredicate") == .falsePredicate)
    }

    // MARK: Precedence

    private func cmp(_ name: String, _ value: Int64) -> P {
        .comparison(.init(.keyPath(name), .equal, .int(value)))
    }

    @Test func andBindsTighterThanOr() throws {
        #expect(try QueryTest.predicate("a == 1 OR b == 2 AND c == 3")
            == .or([cmp("a", 1), .and([cmp("b", 2), cmp("c", 3)])]))
        #expect(try QueryTest.predicate("a == 1 && b == 2 || c == 3")
            == .or([.and([cmp("a", 1), cmp("b", 2)]), cmp("c", 3)]))
    }

    @Test func notBindsTighterThanAnd() throws {
        #expect(try QueryTest.predicate("NOT a == 1 AND b == 2") == .and([.not(cmp("a", 1)), cmp("b", 2)]))
        #expect(try QueryTest.predicate("!a == 1 || !!b == 2") == .or([.not(cmp("a", 1)), .not(.not(cmp("b", 2)))]))
    }

    @Test func chainsAreFlatAndParenthesesNest() throws {
        #expect(try QueryTest.predicate("a == 1 AND b == 2 AND c == 3") == .and([cmp("a", 1), cmp("b", 2), cmp("c", 3)]))
        #expect(try QueryTest.predicate("(a == 1 OR b == 2) AND c == 3")
            == .and([.or([cmp("a", 1), cmp("b", 2)]), cmp("c", 3)]))
        #expect(try QueryTest.predicate("a == 1 AND (b == 2 AND c == 3)")
            == .and([cmp("a", 1), .and([cmp("b", 2), cmp("c", 3)])]))
        #expect(try QueryTest.predicate("NOT (a == 1 OR b == 2)") == .not(.or([cmp("a", 1), cmp("b", 2)])))
        #expect(try QueryTest.predicate("((a == 1))") == cmp("a", 1))
    }

    @Test func conjunctsFlattenNestedAnds() throws {
        let predicate = try QueryTest.predicate("a == 1 AND (b == 2 AND c == 3) AND (d == 4 OR e == 5)")
        #expect(predicate.conjuncts.count == 4)
    }

    // MARK: Quantifiers, aggregates, subqueries

    @Test func quantifiers() throws {
        #expect(try QueryTest.comparison("ANY tags.name == 'x'").quantifier == .any)
        #expect(try QueryTest.comparison("SOME tags.name == 'x'").quantifier == .any)
        #expect(try QueryTest.comparison("all scores > 3").quantifier == .all)
        #expect(try QueryTest.comparison("NONE dogs.age < 2").quantifier == .noneOf)
        let predicate = try QueryTest.predicate("NONE dogs.age < 2")
        #expect(predicate.range.start.column == 1)
    }

    @Test func aggregatesWithAndWithoutProperty() throws {
        let count = try QueryTest.comparison("dogs.@count > 2")
        #expect(count.left == E(.aggregate(.init(collection: QueryKeyPath("dogs"), function: .count))))
        let sum = try QueryTest.comparison("items.@sum.price >= 10.5")
        #expect(sum.left == E(.aggregate(.init(collection: QueryKeyPath("items"), function: .sum, property: QueryKeyPath("price")))))
        #expect(sum.left.range.start.column == 1)
        #expect(sum.left.range.end.column == 17)
        for function in ["@avg", "@min", "@max"] {
            let comparison = try QueryTest.comparison("owner.scores.\(function) < 3")
            guard case .aggregate(let aggregate) = comparison.left.kind else { Issue.record("no aggregate"); continue }
            #expect(aggregate.function.rawValue == function)
            #expect(aggregate.collection.names == ["owner", "scores"])
            #expect(aggregate.property == nil)
        }
        #expect(try QueryTest.comparison("name.@size == 4").left
            == E(.aggregate(.init(collection: QueryKeyPath("name"), function: .size))))
        #expect(try QueryTest.comparison("3 == dogs.@max.owner.age").right
            == E(.aggregate(.init(collection: QueryKeyPath("dogs"), function: .max, property: QueryKeyPath("owner.age")))))
    }

    @Test func subqueryCounts() throws {
        let comparison = try QueryTest.comparison("SUBQUERY(dogs, $dog, $dog.age > 2 AND $dog.name BEGINSWITH 'R').@count > 0")
        guard case .subqueryCount(let subquery) = comparison.left.kind else {
            Issue.record("not a subquery")
            return
        }
        #expect(subquery.collection == QueryKeyPath("dogs"))
        #expect(subquery.variable.name == "dog")
        #expect(subquery.variable.range.start.column == 16)
        let inner = QueryKeyPath(variable: QueryIdentifier("dog"), components: [QueryIdentifier("age")])
        #expect(subquery.predicate.conjuncts.first == .comparison(.init(E(.keyPath(inner)), .greaterThan, .int(2))))
        #expect(comparison.right == .int(0))
    }

    @Test func subqueriesNestAndSeeOuterVariables() throws {
        let text = "SUBQUERY(dogs, $d, SUBQUERY($d.toys, $t, $t.color == $d.color).@count > 1).@count == 2"
        let comparison = try QueryTest.comparison(text)
        guard case .subqueryCount(let outer) = comparison.left.kind,
              case .comparison(let innerComparison) = outer.predicate.kind,
              case .subqueryCount(let inner) = innerComparison.left.kind else {
            Issue.record("unexpected shape")
            return
        }
        #expect(inner.collection == QueryKeyPath(variable: QueryIdentifier("d"), components: [QueryIdentifier("toys")]))
    }

    @Test func bareVariablesNameListElements() throws {
        let comparison = try QueryTest.comparison("SUBQUERY(scores, $s, $s > 5).@count == 1")
        guard case .subqueryCount(let subquery) = comparison.left.kind,
              case .comparison(let inner) = subquery.predicate.kind else {
            Issue.record("unexpected shape")
            return
        }
        #expect(inner.left == E(.keyPath(QueryKeyPath(variable: QueryIdentifier("s"), components: []))))
    }

    // MARK: Queries

    @Test func modelAlone() throws {
        let query = try QueryParser.parseQuery("Person")
        #expect(query == Query(model: QueryIdentifier("Person")))
        #expect(query.model.range.end.column == 7)
    }

    @Test func modelWithPredicateSortDistinctLimit() throws {
        let query = try QueryParser.parseQuery("Person where age > 3 SORT(age DESC, name) DISTINCT(name, owner.name) LIMIT(10)")
        #expect(query.model.name == "Person")
        #expect(query.predicate == .comparison(.init(.keyPath("age"), .greaterThan, .int(3))))
        #expect(query.sort == [QuerySortDescriptor(QueryKeyPath("age"), ascending: false), QuerySortDescriptor(QueryKeyPath("name"))])
        #expect(query.distinct == [QueryKeyPath("name"), QueryKeyPath("owner.name")])
        #expect(query.limit == 10)
    }

    @Test func clauseKeywordsInAnyCase() throws {
        let query = try QueryParser.parseQuery("Person WHERE age > 3 sort(age ascending, name descending, x Asc, y desc) distinct(name) limit(0)")
        #expect(query.sort.map(\.ascending) == [true, false, true, false])
        #expect(query.limit == 0)
        #expect(try QueryParser.parseQuery("Person Where age > 3").predicate != nil)
    }

    @Test func clausesWithoutAPredicate() throws {
        #expect(try QueryParser.parseQuery("Person SORT(age ASC)").sort == [QuerySortDescriptor(QueryKeyPath("age"))])
        #expect(try QueryParser.parseQuery("Person LIMIT(5)").limit == 5)
        #expect(try QueryParser.parseQuery("Person DISTINCT(name) LIMIT(5)").distinct == [QueryKeyPath("name")])
    }

    @Test func modelNamesAreCaseSensitiveAndMayLookLikeKeywords() throws {
        #expect(try QueryParser.parseQuery("person").model.name == "person")
        #expect(try QueryParser.parseQuery("Sort where a == 1").model.name == "Sort")
        #expect(try QueryParser.parseQuery("Limit LIMIT(1)").limit == 1)
        let page = try QueryParser.parseQuery("Person where offset > 1 SORT(offset) DISTINCT(name) OFFSET(20) LIMIT(10)")
        #expect(page.offset == 20)
        #expect(page.limit == 10)
        #expect(page.sort == [QuerySortDescriptor(QueryKeyPath("offset"))])
        #expect(try QueryParser.parseQuery("Person offset(3)").offset == 3)
        #expect(try QueryParser.parseQuery("Person").offset == 0)
    }

    @Test func predicateMayUseClauseWordsAsProperties() throws {
        let query = try QueryParser.parseQuery("Item where sort == 1 AND limit < 2 SORT(sort DESC)")
        #expect(query.predicate?.conjuncts.count == 2)
        #expect(query.sort == [QuerySortDescriptor(QueryKeyPath("sort"), ascending: false)])
    }

    // MARK: Incremental API

    @Test func incrementalParsingStopsAtTheFirstForeignWord() throws {
        var parser = try QueryParser("age > 3 AND name == 'x' set name = 'y'")
        let predicate = try parser.parsePredicate()
        #expect(predicate.conjuncts.count == 2)
        #expect(try parser.consumeWord("SET"))
        #expect(try parser.parseExpression() == .keyPath("name"))
        #expect(parser.location.column == 34)
        #expect(!parser.isAtEnd)
    }
}
