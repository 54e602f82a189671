#!/bin/bash
# test/layers.sh: the layers of src/ only point down (make layers).
#
# A module is one .c file of src/core or src/pg with the header of the same
# name beside it (a header without a .c is a module of its own).  Module A
# depends on module B when a file of A includes a header of B, or when A's
# object file calls a function that B's object file defines (nm: an
# undefined symbol of A that B defines in its text section).  A reference to
# data is not a call: the registry lists the kinds' tables, the kinds do not
# call the registry back.
#
# Checks, one TAP line each:
#   1. no cycle between modules (each cycle named, with what ties it)
#   2. src/core includes no PostgreSQL header, and each of its quoted
#      includes is a header of src/core
#   3. src/core's objects call nothing that src/pg defines and no
#      PostgreSQL function (the core links into the unit tests without the
#      server)
#
# Needs the object files of `make` (make layers builds them first).
# LAYERS_ROOT names another tree to check (the tests of this script use it).
set -u
root=${LAYERS_ROOT:-.}
cd "$root" || exit 2

pg_includes=
if command -v "${PG_CONFIG:-pg_config}" >/dev/null 2>&1; then
  pg_includes=$("${PG_CONFIG:-pg_config}" --includedir-server)
fi

sources=$(find src/core src/pg -name '*.[ch]' | sort)
objects=$(find src/core src/pg -name '*.o' | sort)
if [ -z "$objects" ]; then
  echo "1..3"
  echo "not ok 1 - no object files under src/: run make first"
  exit 1
fi
missing=0
for c in $(find src/core src/pg -name '*.c'); do
  [ -f "${c%.c}.o" ] || { echo "# no object file for $c: run make first"; missing=1; }
done
[ "$missing" -eq 0 ] || { echo "1..3"; echo "not ok 1 - objects missing"; exit 1; }

{
  for f in $sources; do
    echo "F $f"
    # quoted and angle includes, with the line they stand on
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/Q \1/p;
            s/^[[:space:]]*#[[:space:]]*include[[:space:]]*<\([^>]*\)>.*/A \1/p' "$f" |
      while read -r kind name; do
        pg=0
        if [ "$kind" = A ] && [ -n "$pg_includes" ] && [ -f "$pg_includes/$name" ]; then pg=1; fi
        echo "$kind $f $name $pg"
      done
  done
  for o in $objects; do
    nm --defined-only "$o" 2>/dev/null | awk -v o="$o" '$2 == "T" { print "D", o, $3 }'
    nm --undefined-only "$o" 2>/dev/null | awk -v o="$o" '{ print "U", o, $NF }'
  done
} | awk '
function stem(path) { sub(/\.[cho]$/, "", path); return path }
function base(path) { n = split(path, parts, "/"); return parts[n] }
function add_edge(a, b, why) {
  if (a == b) return
  if (!((a, b) in edge)) { edge[a, b] = why; succ[a] = succ[a] " " b }
  else if (length(edge[a, b]) < 160 && index(edge[a, b], why) == 0) edge[a, b] = edge[a, b] ", " why
}
# Tarjan: strongly connected components of the module graph
function connect(v,    list, n, i, w) {
  index_of[v] = next_index; low[v] = next_index; next_index++
  stack[++top] = v; on_stack[v] = 1
  n = split(succ[v], list, " ")
  for (i = 1; i <= n; i++) {
    w = list[i]
    if (!(w in index_of)) { connect(w); if (low[w] < low[v]) low[v] = low[w] }
    else if (on_stack[w] && index_of[w] < low[v]) low[v] = index_of[w]
  }
  if (low[v] == index_of[v]) {
    components++; size = 0
    do { w = stack[top--]; on_stack[w] = 0; component[w] = components; size++ } while (w != v)
    component_size[components] = size
  }
}
# one cycle through v inside its component, by depth-first search
function find_cycle(v, target,    list, n, i, w) {
  seen[v] = 1; path[++depth] = v
  n = split(succ[v], list, " ")
  for (i = 1; i <= n; i++) {
    w = list[i]
    if (component[w] != component[target]) continue
    if (w == target) { path[++depth] = w; return 1 }
    if (!(w in seen) && find_cycle(w, target)) return 1
  }
  depth--
  return 0
}
$1 == "F" { file[$2] = 1; by_name[base($2)] = by_name[base($2)] " " $2; next }
$1 == "Q" || $1 == "A" { include[++includes] = $0; next }
$1 == "D" { defined_by[$3] = stem($2); next }
$1 == "U" { undefined[++undefineds] = stem($2) " " $3; next }
END {
  # modules: a header goes with the .c of its stem in its directory
  for (f in file) {
    s = stem(f)
    if (f ~ /\.h$/ && !((s ".c") in file)) module[f] = s ".h"
    else module[f] = s
    modules[module[f]] = 1
  }
  core_include_problems = ""
  for (i = 1; i <= includes; i++) {
    split(include[i], x, " ")
    kind = x[1]; from = x[2]; name = x[3]; pg = x[4]
    in_core = (from ~ /^src\/core\//)
    if (kind == "A") {
      if (in_core && pg == 1) core_include_problems = core_include_problems "\n# " from " includes <" name ">, a PostgreSQL header"
      continue
    }
    # a bare name is found on the include path (every directory of src/core, and src/pg)
    target = ""
    if ((dirname_of(from) "/" name) in file) target = dirname_of(from) "/" name
    n = split(by_name[base(name)], candidates, " ")
    for (j = 1; j <= n && target == ""; j++) {
      if (index(name, "/") > 0 && substr(candidates[j], length(candidates[j]) - length(name) + 1) != name) continue
      if (candidates[j] ~ /^src\/core\//) target = candidates[j]
    }
    # src/pg finds its own headers first (the directory of the file), then src/core
    if (target == "" && !in_core)
      for (j = 1; j <= n && target == ""; j++)
        if (candidates[j] ~ /^src\/pg\//) target = candidates[j]
    if (target == "") {
      if (in_core) core_include_problems = core_include_problems "\n# " from " includes \"" name "\", not a header of src/core"
      continue
    }
    add_edge(module[from], module[target], "includes " base(target))
  }
  core_call_problems = ""
  for (i = 1; i <= undefineds; i++) {
    split(undefined[i], x, " ")
    from = x[1]; symbol = x[2]
    if (symbol in defined_by) {
      to = defined_by[symbol]
      if (from ~ /^src\/core\// && to ~ /^src\/pg\//)
        core_call_problems = core_call_problems "\n# " from ".o calls " symbol " of " to ".c"
      add_edge(from, to, "calls " symbol)
    } else if (from ~ /^src\/core\// &&
               symbol ~ /^(palloc|palloc0|pfree|repalloc|pstrdup|psprintf|errstart|errfinish|errcode|errmsg|errdetail|errhint|elog_start|elog_finish|pg_[a-z_]+|MemoryContext[A-Za-z]*|CurrentMemoryContext|ExceptionalCondition|SPI_[a-z_]+|fmgr_[a-z_]+|DirectFunctionCall[0-9]+Coll|OidFunctionCall[0-9]+Coll)$/)
      core_call_problems = core_call_problems "\n# " from ".o calls " symbol ", a PostgreSQL function"
  }
  for (m in modules) if (!(m in index_of)) connect(m)
  cycles = ""; cycle_count = 0
  for (m in modules) {
    c = component[m]
    if (component_size[c] < 2 || (c in reported)) continue
    reported[c] = 1; cycle_count++
    # start from the smallest name, so the message is the same every run
    start = m
    for (w in modules) if (component[w] == c && w < start) start = w
    split("", seen); depth = 0
    find_cycle(start, start)
    line = "# cycle " cycle_count " (" component_size[c] " modules): " path[1]
    for (k = 2; k <= depth; k++) line = line " -> " path[k]
    for (k = 1; k < depth; k++) line = line "\n#   " path[k] " -> " path[k + 1] ": " edge[path[k], path[k + 1]]
    cycles = cycles "\n" line
  }
  edges = 0
  for (e in edge) edges++
  n_modules = 0
  for (m in modules) n_modules++
  print "1..3"
  if (cycle_count == 0) print "ok 1 - no cycle between the " n_modules " modules of src/core and src/pg (" edges " dependencies)"
  else print "not ok 1 - " cycle_count " cycle(s) between modules of src/" cycles
  if (core_include_problems == "") print "ok 2 - src/core includes only its own headers and no PostgreSQL header"
  else print "not ok 2 - src/core includes what it must not:" core_include_problems
  if (core_call_problems == "") print "ok 3 - src/core calls nothing of src/pg or of PostgreSQL"
  else print "not ok 3 - src/core calls into src/pg or PostgreSQL:" core_call_problems
  exit (cycle_count > 0 || core_include_problems != "" || core_call_problems != "") ? 1 : 0
}
function dirname_of(path) { sub(/\/[^\/]*$/, "", path); return path }
'
