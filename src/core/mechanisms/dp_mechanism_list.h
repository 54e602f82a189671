/*
 * dp_mechanism_list.h
 *		The registry of counting mechanisms: one line per mechanism, its
 *		enum name, its stored id (never reused) and its dp_counter_kind.
 *
 * Adding a mechanism is its file in this directory, one line here and its
 * SQL constructor (a declaration of the generic C function
 * dp_mechanism_construct, docs/design.md).  Included with
 * DP_MECHANISM_ENTRY defined by the includer.
 */
DP_MECHANISM_ENTRY(BINARY, 1, dp_binary_kind)
DP_MECHANISM_ENTRY(SIMPLE_I, 2, dp_simple_i_kind)
DP_MECHANISM_ENTRY(SIMPLE_II, 3, dp_simple_ii_kind)
DP_MECHANISM_ENTRY(TWO_LEVEL, 4, dp_two_level_kind)
DP_MECHANISM_ENTRY(HYBRID, 5, dp_hybrid_kind)
DP_MECHANISM_ENTRY(PPCUM, 6, dp_ppcum_kind)
DP_MECHANISM_ENTRY(KARY, 7, dp_kary_kind)
DP_MECHANISM_ENTRY(BALANCED, 8, dp_balanced_kind)
DP_MECHANISM_ENTRY(BALANCED_UNBOUNDED, 9, dp_balanced_blocks_kind)
DP_MECHANISM_ENTRY(BLT, 11, dp_blt_kind)
DP_MECHANISM_ENTRY(HONAKER, 10, dp_honaker_kind)
DP_MECHANISM_ENTRY(SMOOTH_BINARY, 12, dp_smooth_binary_kind)
DP_MECHANISM_ENTRY(EXPIRING, 13, dp_expiring_kind)
DP_MECHANISM_ENTRY(EXPIRING_BASELINE, 14, dp_expiring_baseline_kind)
DP_MECHANISM_ENTRY(DECAYED, 16, dp_decayed_kind)
DP_MECHANISM_ENTRY(ROLLING, 17, dp_rolling_kind)
