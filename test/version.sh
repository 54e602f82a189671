#!/usr/bin/env bash
# The version of the extension's SQL is written once, in dp_stream.control
# (default_version); everything else follows it or is checked against it
# here (docs/design.md, "Contributor checklist").  No cluster: files only.
#   1. dp_stream.control states a version x.y.z
#   2. `make` builds the full script of that version, a copy of
#      sql/dp_stream.sql named sql/dp_stream--x.y.z.sql
#   3. META.json states it twice, for the distribution and for the
#      extension it provides, and names sql/dp_stream.sql as its file
#   4. the update scripts lead from 0.1.0 to it, one version at a time,
#      with no script leaving a version twice
#   5. no expected output of test/regress shows it as a result: a test
#      compares extversion with default_version instead
# Prints TAP; exits non-zero on a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
. test/tap.sh
planned=5
echo "1..$planned"

version=$(sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" dp_stream.control)
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]
report $? "dp_stream.control: default_version '$version'"

# what `make` would do were sql/dp_stream.sql new: copy it to the full
# script of this version (DATA_built, so also installed and cleaned)
built=$(make -s -n -W sql/dp_stream.sql all 2>&1)
grep -qxF "cp sql/dp_stream.sql sql/dp_stream--$version.sql" <<<"$built"
report $? "make builds sql/dp_stream--$version.sql from sql/dp_stream.sql"

# "version" outside the meta-spec block, and the file the extension comes from
meta_versions=$(awk '/"meta-spec"/ { spec = 1 } spec && /}/ { spec = 0 }
                     !spec && /"version"/ { sub(/.*"version": *"/, ""); sub(/".*/, ""); print }' META.json |
                tr '\n' ' ')
meta_file=$(sed -n 's/.*"file": *"\([^"]*\)".*/\1/p' META.json)
is "META.json: the distribution's and the extension's version, and its file" \
   "$meta_versions$meta_file" "$version $version sql/dp_stream.sql"

# follow the update scripts from 0.1.0
at=0.1.0 path=0.1.0 problem=""
while [ "$at" != "$version" ]; do
  next=$(ls sql/dp_stream--"$at"--*.sql 2>/dev/null | sed "s|sql/dp_stream--$at--||; s|\.sql$||")
  if [ -z "$next" ]; then problem="no update script from $at"; break; fi
  if [ "$(wc -l <<<"$next")" -ne 1 ]; then problem="more than one update script from $at: $(tr '\n' ' ' <<<"$next")"; break; fi
  at=$next path="$path $at"
done
if [ -z "$problem" ]; then
  report 0 "update scripts from 0.1.0 to $version: $(wc -w <<<"$path") versions"
else
  report 1 "update scripts from 0.1.0 to $version: $problem"
fi

shown=$(grep -lxF " $version" test/regress/expected/*.out 2>/dev/null | tr '\n' ' ')
is "no expected output of test/regress shows $version as a result" "$shown" ""

finish
