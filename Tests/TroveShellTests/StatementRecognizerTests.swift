import Testing
@testable import TroveShell

@Suite struct StatementRecognizerTests {
    func recognize(_ text: String) throws -> ShellStatement {
        try StatementRecognizer.recognize(text)
    }

    func failure(_ text: String) -> StatementError? {
        do {
            _ = try StatementRecognizer.recognize(text)
            return nil
        } catch {
            return error
        }
    }

    func f(_ text: String, _ offset: Int) -> SourceFragment { SourceFragment(text, offset: offset) }

    /// A query on `model` whose text starts at the model name.
    func q(_ model: String, _ text: String, _ offset: Int) -> QuerySpec {
        QuerySpec(model: f(model, offset), text: f(text, offset))
    }

    @Test func bareModelIsAQuery() throws {
        #expect(try recognize("Person") == .query(q("Person", "Person", 0)))
        #expect(try recognize("  Person  ") == .query(q("Person", "Person", 2)))
    }

    @Test func queryKeepsItsTextAsTypedAndItsOffset() throws {
        let s = try recognize("Person where age > 30 AND name BEGINSWITH[c] 'a'")
        #expect(s == .query(q("Person", "Person where age > 30 AND name BEGINSWITH[c] 'a'", 0)))
    }

    @Test func keywordsAreCaseInsensitive() throws {
        #expect(try recognize("COUNT Person WHERE a == 1") == .count(model: f("Person", 6), predicate: f("a == 1", 19)))
        #expect(try recognize("Get Person 1") == .get(model: f("Person", 4), keys: [f("1", 11)]))
        #expect(try recognize("BEGIN") == .begin)
        #expect(try recognize("Commit") == .commit)
        #expect(try recognize("rollback transaction") == .rollback)
    }

    @Test func clausesStayInTheQueryTextForTheQueryParser() throws {
        let text = "Person where age > 3 SORT(age DESC, name) DISTINCT(name, owner.name) LIMIT(10)"
        #expect(try recognize("  " + text + " ") == .query(q("Person", text, 2)))
        #expect(try recognize("Person limit(5)") == .query(q("Person", "Person limit(5)", 0)))
    }

    @Test func countWithoutPredicate() throws {
        #expect(try recognize("count Person") == .count(model: f("Person", 6), predicate: nil))
    }

    @Test func getTakesSeveralKeysOfAnyLiteralForm() throws {
        let s = try recognize(#"get Person 1 'ann lee' "x" $0 3f2a-11"#)
        #expect(s == .get(model: f("Person", 4), keys: [f("1", 11), f("'ann lee'", 13), f(#""x""#, 23), f("$0", 27), f("3f2a-11", 30)]))
    }

    @Test func insertAndUpsertKeepTheJSONText() throws {
        #expect(try recognize(#"insert Person {"id": 1}"#) == .insert(model: f("Person", 7), json: f(#"{"id": 1}"#, 14)))
        #expect(try recognize("upsert Person [{\"id\": 1},\n {\"id\": 2}]  ") == .upsert(model: f("Person", 7), json: f("[{\"id\": 1},\n {\"id\": 2}]", 14)))
    }

    @Test func updateByKeys() throws {
        let s = try recognize("update Person 1 2 set name = 'x', age = $0")
        #expect(s == .update(model: f("Person", 7), target: .keys([f("1", 14), f("2", 16)]), assignments: [
            Assignment(property: f("name", 22), value: f("'x'", 29)),
            Assignment(property: f("age", 34), value: f("$0", 40)),
        ]))
    }

    @Test func updateByPredicateWithCommasInValues() throws {
        let s = try recognize("UPDATE Person WHERE age < 3 SET tags = [\"a\", \"b\"], name = 'a, b'")
        #expect(s == .update(model: f("Person", 7), target: .predicate(f("age < 3", 20)), assignments: [
            Assignment(property: f("tags", 32), value: f(#"["a", "b"]"#, 39)),
            Assignment(property: f("name", 51), value: f("'a, b'", 58)),
        ]))
    }

    @Test func updateUsesTheLastSetSoAPropertyMayBeCalledSet() throws {
        let s = try recognize("update P where set == 1 set x = 2")
        #expect(s == .update(model: f("P", 7), target: .predicate(f("set == 1", 15)), assignments: [
            Assignment(property: f("x", 28), value: f("2", 32)),
        ]))
    }

    /// A `set` that an operator follows is the property, not the keyword: it can be set too.
    @Test func aPropertyCalledSetCanBeSet() throws {
        #expect(try recognize("update P where set == 1 set set = 2, x = 3") == .update(
            model: f("P", 7), target: .predicate(f("set == 1", 15)),
            assignments: [Assignment(property: f("set", 28), value: f("2", 34)), Assignment(property: f("x", 37), value: f("3", 41))]))
        #expect(try recognize("update P 1 set x = 1, set =2") == .update(
            model: f("P", 7), target: .keys([f("1", 9)]),
            assignments: [Assignment(property: f("x", 15), value: f("1", 19)), Assignment(property: f("set", 22), value: f("2", 27))]))
        #expect(try recognize("update P 1 set #set = 3") == .update(
            model: f("P", 7), target: .keys([f("1", 9)]),
            assignments: [Assignment(property: f("set", 16), value: f("3", 22))]))
        #expect(try recognize("update P where #set == 1 set #set = 2, #x = 3") == .update(
            model: f("P", 7), target: .predicate(f("#set == 1", 15)),
            assignments: [Assignment(property: f("set", 30), value: f("2", 36)), Assignment(property: f("x", 40), value: f("3", 44))]))
    }

    @Test func aSetWithoutItsPropertyIsReportedAtTheAssignment() {
        // Every `set` here is followed by an operator: the last one is still the keyword, and
        // the missing property is reported where it belongs, not as a missing `set` clause.
        let missing = failure("update Person 1 set = 3")
        #expect(missing?.message == "expected 'PROPERTY = VALUE', found '='")
        #expect(missing?.offset == 20)
        let glued = failure("update Person where age > 3 set =3")
        #expect(glued?.message.hasPrefix("expected 'PROPERTY = VALUE', found '=") == true)
        #expect(glued?.offset == 32)
    }

    @Test func deleteByKeysOrPredicate() throws {
        #expect(try recognize("delete Person 1 2") == .delete(model: f("Person", 7), target: .keys([f("1", 14), f("2", 16)])))
        #expect(try recognize("delete Person where age > 1") == .delete(model: f("Person", 7), target: .predicate(f("age > 1", 20))))
    }

    @Test func importTakesAFileNameQuotedOrNot() throws {
        #expect(try recognize("import Person people.jsonl") == .importFile(model: f("Person", 7), file: f("people.jsonl", 14)))
        #expect(try recognize("import Person -") == .importFile(model: f("Person", 7), file: f("-", 14)))
        #expect(try recognize("import Person 'my people.json'") == .importFile(model: f("Person", 7), file: f("my people.json", 14)))
        #expect(try recognize("import Person - as csv") == .importFile(model: f("Person", 7), file: f("-", 14), format: .csv))
        #expect(try recognize("import Person p.txt AS TSV MERGE") == .importFile(model: f("Person", 7), file: f("p.txt", 14), format: .tsv, merge: true))
        #expect(try recognize("import Person 'a merge.json' merge") == .importFile(model: f("Person", 7), file: f("a merge.json", 14), merge: true))
        #expect(try recognize("import Person merge") == .importFile(model: f("Person", 7), file: f("merge", 14)))
        #expect(throws: StatementError.self) { try recognize("import Person p AS XML") }
    }

    @Test func exportWithAndWithoutFile() throws {
        #expect(try recognize("export Person") == .export(q("Person", "Person", 7), file: nil))
        #expect(try recognize("export Person out.jsonl") == .export(q("Person", "Person", 7), file: f("out.jsonl", 14)))
        #expect(try recognize("export Person where age > 3") == .export(q("Person", "Person where age > 3", 7), file: nil))
        #expect(try recognize("export Person where age > 3 out.json") == .export(q("Person", "Person where age > 3", 7), file: f("out.json", 28)))
        #expect(try recognize("export Person where name == 'x'") == .export(q("Person", "Person where name == 'x'", 7), file: nil))
        #expect(try recognize("export Person where name CONTAINS[c] 'x' 'a b.csv'") == .export(q("Person", "Person where name CONTAINS[c] 'x'", 7), file: f("a b.csv", 41)))
        #expect(try recognize("export Person where a > 1 LIMIT(2) o.json") == .export(q("Person", "Person where a > 1 LIMIT(2)", 7), file: f("o.json", 35)))
        #expect(try recognize("export Person SORT(name) LIMIT(2)") == .export(q("Person", "Person SORT(name) LIMIT(2)", 7), file: nil))
        #expect(try recognize("export Person where limit > 1 SORT(x, y) 'a b.csv'") == .export(q("Person", "Person where limit > 1 SORT(x, y)", 7), file: f("a b.csv", 41)))
        #expect(failure("export Person LIMIT(2) a b") == StatementError("expected GROUP(...), SORT(...), DISTINCT(...), OFFSET(...), LIMIT(...), SELECT(...) or a file name, found 'a'", at: 23))
    }

    @Test func explainAndWatchWrapAQuery() throws {
        #expect(try recognize("explain Person where age > 1") == .explain(q("Person", "Person where age > 1", 8)))
        #expect(try recognize("watch Person LIMIT(3)") == .watch(q("Person", "Person LIMIT(3)", 6)))
    }

    @Test func modelNamedLikeAKeywordIsQueriedWhenNothingElseFits() throws {
        #expect(try recognize("count") == .query(q("count", "count", 0)))
        #expect(try recognize("get where x == 1") == .query(q("get", "get where x == 1", 0)))
        #expect(try recognize("delete LIMIT(2)") == .query(q("delete", "delete LIMIT(2)", 0)))
    }

    @Test func writesAreMarked() throws {
        #expect(try recognize("insert A {}").isWrite)
        #expect(try recognize("delete A 1").isWrite)
        #expect(try recognize("import A f").isWrite)
        #expect(try !recognize("A").isWrite)
        #expect(try !recognize("export A f").isWrite)
    }

    @Test func errorsNameWhatWasExpectedAndWhere() {
        #expect(failure("get Person") == StatementError("expected a primary key after 'get Person', found the end of the statement", at: 10))
        #expect(failure("count") == nil)
        #expect(failure("count 42") == StatementError("expected a model name after 'count', found '42'", at: 6))
        #expect(failure("insert Person id=1") == StatementError("expected a JSON object or array after 'insert Person', found 'id'", at: 14))
        #expect(failure("update Person 1") == StatementError("expected 'set PROPERTY = VALUE' in update, found the end of the statement", at: 15))
        #expect(failure("update Person 1 set x == 2") == StatementError("expected '=' after 'x', found '=='", at: 22))
        #expect(failure("update Person 1 set x =") == StatementError("expected a value after 'x =', found the end of the statement", at: 23))
        #expect(failure("begin now") == StatementError("unexpected text after 'begin'", at: 6))
        #expect(failure("42") == StatementError("expected a model name or a statement keyword, found '42'", at: 0))
        #expect(failure("Person, x") == StatementError("unexpected ',' after model name 'Person'", at: 6))
        #expect(failure("Car→ where x == 1") == StatementError("unexpected '→' after model name 'Car'", at: 3))
        #expect(failure("count Maß€") == StatementError("unexpected '€' after model name 'Maß'", at: 10))
        #expect(failure("Caré where x == 1") == nil)
        #expect(failure("import Person") == StatementError("expected a file name (or '-' for standard input), found the end of the statement", at: 13))
        #expect(failure("import Car a b.csv") == StatementError("expected AS CSV|TSV|JSON, MERGE or the end of the statement after the file name (quote a name with blanks), found 'b.csv'", at: 13))
        #expect(failure("import Car 'a b.csv' x MERGE") == StatementError("expected AS CSV|TSV|JSON, MERGE or the end of the statement after the file name (quote a name with blanks), found 'x'", at: 21))
        #expect(failure("import Car 'a b.csv' AS CSV MERGE") == nil)
        #expect(failure("explain get Person 1") == StatementError("explain takes a query (MODEL ..., count, sum, avg, min or max), not 'get'; a key lookup is the query 'explain MODEL where KEY == VALUE'", at: 8))
        #expect(failure("watch delete Person 1") == StatementError("watch takes a query (MODEL ..., count, sum, avg, min or max), not 'delete'", at: 6))
        #expect(failure("explain count Person") == nil)
        // A model may be named like a statement: followed by the end, `where` or a clause.
        #expect(failure("explain Update where x > 1") == nil)
        #expect(failure("watch Get") == nil)
        #expect(failure("watch Delete SORT(x)") == nil)
        #expect(failure("explain avg Person.age") == nil)
        #expect(failure("get Person 'open") == StatementError("unterminated or malformed string", at: 11))
    }

    /// `get` with a clause suggests the query it means: every key given, by the primary key's
    /// name where the schema gives it, else `KEY`, said to stand for it.
    @Test func getWithAClauseSuggestsTheQueryForEveryKey() {
        func suggestion(_ text: String, primaryKey: StatementRecognizer.PrimaryKey) -> String? {
            do {
                _ = try StatementRecognizer.recognize(text) { $0 == "Tag" ? primaryKey : .noModel }
                return nil
            } catch {
                return error.message
            }
        }
        let text = "get Tag 'a b' 'SORT(x)' LIMIT(1)"
        #expect(suggestion(text, primaryKey: .named("name"))
                == "get takes primary keys only; LIMIT(...) belongs to a query, as in Tag where name IN {'a b', 'SORT(x)'} LIMIT(1)")
        #expect(suggestion(text, primaryKey: .unknown)
                == "get takes primary keys only; LIMIT(...) belongs to a query, as in Tag where KEY IN {'a b', 'SORT(x)'} LIMIT(1) (KEY being Tag's primary key)")
        #expect(suggestion("get Tag 7 SORT(n) LIMIT(1)", primaryKey: .named("id"))
                == "get takes primary keys only; SORT(...) belongs to a query, as in Tag where id == 7 SORT(n) LIMIT(1)")
        // Keys written with commas between them, or as one list, are the list's elements.
        #expect(suggestion("get Tag 1, 2 LIMIT(1)", primaryKey: .named("id"))
                == "get takes primary keys only; LIMIT(...) belongs to a query, as in Tag where id IN {1, 2} LIMIT(1)")
        #expect(suggestion("get Tag 1 ,2 LIMIT(1)", primaryKey: .named("id"))
                == "get takes primary keys only; LIMIT(...) belongs to a query, as in Tag where id IN {1, 2} LIMIT(1)")
        #expect(suggestion("get Tag {1, 2} LIMIT(1)", primaryKey: .named("id"))
                == "get takes primary keys only; LIMIT(...) belongs to a query, as in Tag where id IN {1, 2} LIMIT(1)")
        // A model without a primary key is told so, as `get Tag 1` is; a model the schema
        // lacks gets no query to copy.
        let keyless = #expect(throws: StatementError.self) { try StatementRecognizer.recognize("get Tag 1 SELECT(name)") { _ in .noKey } }
        #expect(keyless == StatementError("model 'Tag' has no primary key: use 'where' to choose objects", at: 8))
        #expect(suggestion("get Tagg 1 SELECT(name)", primaryKey: .named("id"))
                == "get takes primary keys only; SELECT(...) belongs to a query")
        #expect(failure(text)?.offset == 24)
    }
}
