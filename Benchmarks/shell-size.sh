#!/bin/sh
# Issue 28's file-size workload through the shells: N users (200,000 unless given) with random
# 16-hex-digit string keys and an indexed name, imported from JSON lines into Trove (`trove
# import`) and into SQLite (Python's sqlite3 module: TEXT PRIMARY KEY, an index on the name),
# then `delete User where age < 10` (about an eighth of them), then five rounds of
# `update User where TRUEPREDICATE set score = ...`. Prints each store's size after each step:
# Trove's data file and its -log (the -lock, shared memory, apart), SQLite's database and -wal.
#
#   Benchmarks/shell-size.sh [N] [TROVE]     TROVE: the trove binary (default: .build/release/trove)
set -eu
N=${1:-200000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TROVE=${2:-$ROOT/.build/release/trove}
[ -x "$TROVE" ] || { echo "no trove binary at $TROVE (swift build -c release --product trove)" >&2; exit 1; }
DIR=$(mktemp -d "${TMPDIR:-/tmp}/shell-size.XXXXXX")
trap 'rm -rf "$DIR"' EXIT

python3 - "$N" "$DIR/users.jsonl" <<'PY'
import json, random, sys
n, path = int(sys.argv[1]), sys.argv[2]
rng = random.Random(28)
syl = ["ka", "ri", "mo", "to", "na", "se", "lu", "vi", "an", "el", "or", "in", "ba", "de", "go", "zu",
       "pe", "xa", "yo", "ha", "ce", "fi", "ju", "qu", "wa", "no", "mi", "ra", "so", "te", "la", "be"]
word = lambda k: "".join(rng.choice(syl) for _ in range(k)).capitalize()
seen = set()
with open(path, "w") as f:
    while len(seen) < n:
        uid = "%016x" % rng.getrandbits(64)
        if uid in seen:
            continue
        seen.add(uid)
        f.write(json.dumps({"uid": uid, "name": word(3) + " " + word(2),
                            "age": rng.randrange(80), "score": rng.randrange(10_000_000) / 100_000}) + "\n")
PY

cat > "$DIR/schema.json" <<'JSON'
{ "schemaVersion": 1, "models": [ { "name": "User", "primaryKey": "uid", "properties": {
  "uid": "string", "name": { "type": "string", "indexed": true }, "age": "int", "score": "double" } } ] }
JSON

size() { total=0; for f in "$@"; do [ -f "$f" ] && total=$((total + $(stat -c %s "$f"))); done; echo "$total"; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

T="$DIR/users.trove" S="$DIR/users.sqlite"
sql() {
    python3 - "$S" "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.executescript("BEGIN; " + sys.argv[2] + "; COMMIT;")
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()
PY
}

"$TROVE" "$T" ".apply-schema $DIR/schema.json" >/dev/null
sql "CREATE TABLE User(uid TEXT PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, score REAL NOT NULL);
     CREATE INDEX User_name ON User(name)"

printf '%-26s %10s %10s %10s %10s %10s %8s\n' step "trove" "-log" "-lock" "trove+log" sqlite "ratio"
report() {
    data=$(size "$T") log=$(size "$T-log") lock=$(size "$T-lock") both=$(size "$T" "$T-log") lite=$(size "$S" "$S-wal")
    printf '%-26s %10s %10s %10s %10s %10s %8s\n' "$1" "$(mib "$data")" "$(mib "$log")" "$(mib "$lock")" \
        "$(mib "$both")" "$(mib "$lite")" "$(ratio "$both" "$lite")"
    [ "$1" = import ] && imported=$both
    last=$both
}

"$TROVE" "$T" "import User $DIR/users.jsonl" >/dev/null
python3 - "$S" "$DIR/users.jsonl" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("BEGIN")
with open(sys.argv[2]) as f:
    db.executemany("INSERT INTO User VALUES (:uid, :name, :age, :score)", (json.loads(l) for l in f))
db.execute("COMMIT")
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()
PY
report import

"$TROVE" "$T" "delete User where age < 10" >/dev/null
sql "DELETE FROM User WHERE age < 10"
report "delete age < 10"

for round in 1 2 3 4 5; do
    "$TROVE" "$T" "update User where TRUEPREDICATE set score = $round.5" >/dev/null
    sql "UPDATE User SET score = $round.5"
    report "update round $round"
done
echo "after the updates / after the import (trove+log): $(ratio "$last" "$imported")"
"$TROVE" "$T" .verify
