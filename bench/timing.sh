# Sourced by the bench scripts that time SQL: the wall time of a statement
# from psql's \timing (EXPLAIN ANALYZE would add a per-row cost to both
# sides of a comparison), and the median of numbers on stdin.
#   run_ms SQL [SETTING ...]   settings as "name = value", applied first
run_ms() {
  local sql=$1 args=()
  shift
  for setting in "$@"; do args+=(-c "SET $setting"); done
  psql -X -At "${args[@]}" -c '\timing on' -c "$sql" | grep -o '^Time: [0-9.]*' | tail -1 | awk '{print $2}'
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
