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

#endif							/* DP_COMPAT_H */
