/*
 * dp_compat.h
 *		The differences between the PostgreSQL majors dp_stream builds
 *		against, each behind one named macro.  Included first by dp_stream.h,
 *		after postgres.h; no other file tests PG_VERSION_NUM.
 */
#ifndef DP_COMPAT_H
#define DP_COMPAT_H

/*
 * A function that never returns (ereport(ERROR) wrappers).  PostgreSQL 18
 * removed pg_attribute_noreturn(), written after the declarator, for
 * pg_noreturn, written before the declaration; both older compilers' forms
 * accept the attribute in front, so DP_NORETURN goes there on every major.
 */
#ifdef pg_noreturn
#define DP_NORETURN pg_noreturn
#else
#define DP_NORETURN pg_attribute_noreturn()
#endif

/*
 * VARDATA_ANY, VARSIZE_ANY_EXHDR and the other varlena macros: postgres.h
 * included them up to 15; from 16 on they are in varatt.h.
 */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * Looking up a GUC's record by name.  From 16 on guc.c exports
 * find_option() (and get_guc_variables() takes a count and returns an
 * unsorted array); 15 exports no lookup, only the sorted array guc.c
 * searches itself, which dp_stream.c then searches the same way.
 * DP_FIND_GUC_RECORD(name) is defined only where the lookup exists.
 */
#if PG_VERSION_NUM >= 160000
#define DP_FIND_GUC_RECORD(name) find_option((name), false, true, ERROR)
#endif

#endif							/* DP_COMPAT_H */
