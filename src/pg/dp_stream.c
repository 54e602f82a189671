/*
 * dp_stream.c
 *		Module initialisation, the dp_stream.seed setting and the backend's
 *		noise source.
 *
 * The noise source is the one piece of process-wide state besides settings:
 * a ChaCha20 key drawn from the operating system on first use in each
 * process (docs/noise.md, "One source").  It is re-keyed when the process id
 * changes, so a fork never shares keystream, and it is never filled in the
 * postmaster even when the library is preloaded, because nothing draws noise
 * there.
 *
 * dp_stream.seed replaces that key by one derived from a text, so anyone who
 * knows the text can subtract the noise.  It is accepted only from a SET,
 * SET LOCAL or set_config() in the session that uses it, never from a place
 * where the value is stored: pg_db_role_setting (ALTER ROLE/DATABASE ... SET)
 * and pg_proc.proconfig (a function's SET clause) are readable by every role,
 * and postgresql.conf, ALTER SYSTEM, the command line and connection options
 * reach a backend as a placeholder that every role can SHOW until the library
 * loads.  Two checks enforce this, because the GUC machinery of PostgreSQL 15
 * does not let one of them see every case:
 *
 * - seed_check_hook refuses every GucSource but the boot default and
 *   PGC_S_SESSION.  That covers ALTER ROLE/DATABASE ... SET and CREATE/ALTER
 *   FUNCTION ... SET while the library is loaded (validated with PGC_S_TEST,
 *   error), stored role/database settings applied at login and placeholders
 *   re-applied by define_custom_variable when the library loads (their
 *   original source, reported as a WARNING and discarded), postgresql.conf
 *   and ALTER SYSTEM (PGC_S_FILE), -c on the server command line
 *   (PGC_S_ARGV) and PGOPTIONS (PGC_S_CLIENT).
 *
 * - A function's SET clause is applied at call time by fmgr_security_definer
 *   with PGC_S_SESSION and GUC_ACTION_SAVE: to the check hook it looks exactly
 *   like a SET, and if the library was not loaded when the function was
 *   created the value was stored without any check at all.  So
 *   seed_in_force_check, run by dp_backend_random before every seeded draw,
 *   looks at the variable's GUC record and refuses a value installed by a
 *   function's SET clause, and refuses any seeded draw in a parallel worker,
 *   where that cannot be told.
 */
#include "dp_stream.h"
#include "dp_laplace_table.h"

#include "access/parallel.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

#define SEED_SETTING_NAME "dp_stream.seed"

static char *seed_setting = NULL;
bool		dp_read_unsealed = false;
bool		dp_argument_order_warning = true;
/* bumped whenever dp_stream.seed is assigned, so SET restarts the stream */
static uint64 seed_generation = 0;

typedef struct BackendRandom
{
	dp_random	stream;
	/* tables of the constant-time sampler */
	dp_sampler_cache samplers;
	MemoryContext sampler_context;
	pid_t		owner;
	bool		seeded;
	uint64		generation;
	bool		library_ready;
} BackendRandom;

static BackendRandom backend_random;

#define SEED_HINT \
	"Use SET dp_stream.seed in the session only: stored settings are readable " \
	"by every role, and anyone who knows the seed can remove the noise."

/*
 * Why a value from `source` is refused, for the DETAIL of the check hook's
 * error or warning.
 */
static const char *
seed_source_detail(GucSource source)
{
	switch (source)
	{
		case PGC_S_TEST:
			return "ALTER ROLE ... SET, ALTER DATABASE ... SET and a function's "
				"SET clause store the value in pg_db_role_setting or pg_proc, "
				"which every role can read.";
		case PGC_S_GLOBAL:
		case PGC_S_DATABASE:
		case PGC_S_USER:
		case PGC_S_DATABASE_USER:
			return "The value was stored with ALTER ROLE or ALTER DATABASE ... SET "
				"in pg_db_role_setting, which every role can read; it is never used.";
		case PGC_S_FILE:
			return "Values from postgresql.conf and ALTER SYSTEM reach every session, "
				"where every role can read them with SHOW until the library is "
				"loaded; they are never used.";
		case PGC_S_ARGV:
		case PGC_S_ENV_VAR:
			return "Values from the server's command line reach every session, "
				"where every role can read them with SHOW until the library is "
				"loaded; they are never used.";
		case PGC_S_CLIENT:
			return "Values from connection options (PGOPTIONS, options in the "
				"connection string) are never used.";
		default:
			return "Only SET in the session is accepted.";
	}
}

/*
 * Accepts the boot default (empty: no seed) and PGC_S_SESSION, which is a
 * SET, SET LOCAL or set_config() in the session -- and also a function's SET
 * clause being applied, which this hook cannot tell apart (see
 * seed_in_force_check).  Everything else is refused:
 *
 * - PGC_S_TEST: ALTER ROLE/DATABASE ... SET and CREATE/ALTER FUNCTION or
 *   PROCEDURE ... SET validating a value to store (validate_option_array_item,
 *   elevel ERROR).  Only while the library is loaded in that session: for a
 *   placeholder PostgreSQL checks nothing but superuser privilege.
 * - PGC_S_GLOBAL, _DATABASE, _USER, _DATABASE_USER: stored settings applied
 *   at login (elevel WARNING), either to this variable when the library is
 *   preloaded, or to the placeholder that define_custom_variable re-applies
 *   with its original source and elevel WARNING when the library loads.
 * - PGC_S_FILE, PGC_S_ARGV, PGC_S_ENV_VAR: postgresql.conf and -c on the
 *   server command line; re-applied the same way when the library loads, or
 *   refused at postmaster start or reload when it is preloaded.  ALTER SYSTEM
 *   validates with PGC_S_FILE and elevel ERROR.
 * - PGC_S_CLIENT: PGOPTIONS and other connection options; an error while
 *   connecting when the library is preloaded, else a WARNING on load.
 * - PGC_S_DEFAULT with a non-empty value, PGC_S_DYNAMIC_DEFAULT and
 *   PGC_S_OVERRIDE: never used for this variable by PostgreSQL 15; refused so
 *   that a seed can only ever come from the session.
 *
 * A refused value never takes effect: set_config_option leaves the variable
 * (and its reset value) as it was.  RESET and ALTER ROLE ... RESET pass no
 * value and do not reach this hook, so a stored seed can always be removed.
 */
static bool
seed_check_hook(char **newval, void **extra, GucSource source)
{
	(void) extra;

	if (source == PGC_S_SESSION)
		return true;
	if (source == PGC_S_DEFAULT && (*newval == NULL || (*newval)[0] == '\0'))
		return true;

	GUC_check_errcode(ERRCODE_INSUFFICIENT_PRIVILEGE);
	GUC_check_errmsg("parameter \"%s\" can only be set with SET in the session",
					 SEED_SETTING_NAME);
	GUC_check_errdetail("%s", seed_source_detail(source));
	GUC_check_errhint(SEED_HINT);
	return false;
}

static void
seed_assign_hook(const char *newval, void *extra)
{
	(void) newval;
	(void) extra;
	seed_generation++;
}

#ifdef DP_FIND_GUC_RECORD

/*
 * The GUC record of dp_stream.seed, checked to be this module's variable,
 * not a placeholder.
 */
static struct config_string *
seed_guc_record(void)
{
	struct config_generic *record = DP_FIND_GUC_RECORD(SEED_SETTING_NAME);

	if (record == NULL || record->vartype != PGC_STRING ||
		(record->flags & GUC_CUSTOM_PLACEHOLDER) != 0 ||
		((struct config_string *) record)->variable != &seed_setting)
		return NULL;
	return (struct config_string *) record;
}

#else							/* no lookup exported (15) */

/* guc.c's guc_name_compare: the order of the get_guc_variables() array */
static int
seed_guc_name_compare(const char *namea, const char *nameb)
{
	while (*namea && *nameb)
	{
		char		cha = *namea++;
		char		chb = *nameb++;

		if (cha >= 'A' && cha <= 'Z')
			cha += 'a' - 'A';
		if (chb >= 'A' && chb <= 'Z')
			chb += 'a' - 'A';
		if (cha != chb)
			return cha - chb;
	}
	if (*namea)
		return 1;
	if (*nameb)
		return -1;
	return 0;
}

/*
 * The GUC record of dp_stream.seed.  PostgreSQL 15 exports no find_option(),
 * but get_guc_variables() returns the array guc.c itself searches, kept
 * sorted by guc_name_compare (add_guc_variable re-sorts it; the array may be
 * reallocated, so it is looked up afresh each time rather than cached).  The
 * result is checked to be this module's variable, not a placeholder.
 */
static struct config_string *
seed_guc_record(void)
{
	struct config_generic **variables = get_guc_variables();
	int			low = 0;
	int			high = GetNumConfigOptions() - 1;

	while (low <= high)
	{
		int			middle = low + (high - low) / 2;
		struct config_generic *record = variables[middle];
		int			order = seed_guc_name_compare(SEED_SETTING_NAME, record->name);

		if (order == 0)
		{
			if (record->vartype != PGC_STRING ||
				(record->flags & GUC_CUSTOM_PLACEHOLDER) != 0 ||
				((struct config_string *) record)->variable != &seed_setting)
				return NULL;
			return (struct config_string *) record;
		}
		if (order < 0)
			high = middle - 1;
		else
			low = middle + 1;
	}
	return NULL;
}

#endif							/* DP_FIND_GUC_RECORD */

/*
 * Refuses (ERROR, before anything is drawn) a non-empty dp_stream.seed that
 * did not come from a SET in the session.  Runs before every seeded draw, so
 * a value that a function's SET clause puts in force halfway through a query
 * is caught at the next draw.
 */
static void
seed_in_force_check(void)
{
	struct config_string *record;

	/*
	 * A parallel worker receives the leader's settings from RestoreGUCState
	 * as plain PGC_S_SESSION SETs: whether a function's SET clause installed
	 * the value in the leader is lost, so the check below cannot be made
	 * here.  Noise-drawing functions are PARALLEL RESTRICTED, so this is
	 * reached only through a wrapper mislabelled PARALLEL SAFE -- and then
	 * every worker would replay the same seeded stream.  Refuse.
	 */
	if (IsParallelWorker())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("\"%s\" cannot be used in a parallel worker",
						SEED_SETTING_NAME),
				 errdetail("dp_stream functions are PARALLEL RESTRICTED; a function "
						   "that calls them must not be marked PARALLEL SAFE.")));

	record = seed_guc_record();

	/* fail closed: without the record nothing below can be checked */
	if (record == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not find the GUC record of \"%s\"", SEED_SETTING_NAME)));

	/*
	 * The value in force comes from the top of the variable's GucStack when
	 * there is one: each stack entry records how the current value was
	 * installed at its nest level.  GUC_SAVE is made only by GUC_ACTION_SAVE,
	 * which for this variable only fmgr_security_definer uses, to apply a
	 * function's (or procedure's) SET clause, stored in pg_proc.proconfig
	 * (define_custom_variable re-creates such an entry when the library loads
	 * inside the function): refuse it.  Not only at the current nest level: a function called by
	 * the one with the SET clause, or a subtransaction inside it, runs at a
	 * deeper level with the clause's value still in force and the GUC_SAVE
	 * entry still on top.  A SET inside the function body turns the entry
	 * into GUC_SET (push_old_value) and its value is then accepted like any
	 * SET; a SET LOCAL there leaves GUC_SAVE on top and is refused with it,
	 * which errs on the safe side.  Entries deeper in the stack hold earlier
	 * values that are not in force.
	 */
	if (record->gen.stack != NULL && record->gen.stack->state == GUC_SAVE)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("\"%s\" set by a function's SET clause is not used",
						SEED_SETTING_NAME),
				 errdetail("A function's SET clause is stored in pg_proc.proconfig, "
						   "which every role can read."),
				 errhint("Remove it with ALTER FUNCTION ... RESET %s. %s",
						 SEED_SETTING_NAME, SEED_HINT)));

	/*
	 * Every value the check hook accepts is PGC_S_SESSION except the empty
	 * boot default, so this cannot fail today; it keeps a seed from any other
	 * source (a future PostgreSQL path that bypasses the hook) from ever
	 * being used.
	 */
	if (record->gen.source != PGC_S_SESSION)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("\"%s\" from source \"%s\" is not used",
						SEED_SETTING_NAME, GucSource_Names[record->gen.source]),
				 errhint(SEED_HINT)));
}

void
_PG_init(void)
{
	/*
	 * PGC_SUSET: only superusers (and roles granted SET on the parameter)
	 * may set it.  GUC_SUPERUSER_ONLY hides the value from SHOW,
	 * current_setting(), SHOW ALL and pg_settings for everyone else (in
	 * PostgreSQL 15 pg_settings and SHOW ALL skip such rows for roles without
	 * pg_read_all_settings, so GUC_NO_SHOW_ALL is not needed).
	 */
	DefineCustomStringVariable(SEED_SETTING_NAME,
							   "Makes dp_stream noise deterministic, for regression tests only.",
							   "When not empty, noise comes from a ChaCha20 stream keyed by this "
							   "text instead of the operating system's random generator. "
							   "Anyone who knows the seed can remove the noise: never set it "
							   "where privacy matters. Accepted only from SET in the session.",
							   &seed_setting,
							   "",
							   PGC_SUSET,
							   GUC_NOT_IN_SAMPLE | GUC_SUPERUSER_ONLY,
							   seed_check_hook,
							   seed_assign_hook,
							   NULL);
	/*
	 * Off by default: an unsealed value may have been edited by anyone who
	 * could write it (zero noise, another epsilon), so reading one is a
	 * superuser's deliberate act, for the upgrade from 0.5.0 (dp_reseal).
	 */
	DefineCustomBoolVariable("dp_stream.read_unsealed",
							 "Lets dp_stream read states that are not sealed.",
							 "States written before dp_stream 0.6.0 are not sealed; with this "
							 "on, they are read so that dp_reseal() can rewrite them sealed.",
							 &dp_read_unsealed,
							 false,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);
	/*
	 * On for 0.14.0, which moved max_per_step before the kind's own
	 * parameters: a constructor warns when its arguments, read in the old
	 * order, built another valid mechanism (dp_mechanism_type.c).  Anyone
	 * may turn it off, for a session or in a function's SET clause (the
	 * extension's own wrappers do).
	 */
	DefineCustomBoolVariable("dp_stream.argument_order_warning",
							 "Warns when a mechanism constructor's arguments meant another mechanism before dp_stream 0.14.0.",
							 "dp_stream 0.14.0 puts max_per_step before arity, block, lambda, "
							 "delay, epsilon_past, window_size and parameter; a positional "
							 "call written for an earlier version builds another mechanism.",
							 &dp_argument_order_warning,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
	MarkGUCPrefixReserved("dp_stream");
}

static void *
sampler_allocate(void *context, size_t size)
{
	return MemoryContextAlloc((MemoryContext) context, size);
}

static void
sampler_release_all(void *context)
{
	MemoryContextReset((MemoryContext) context);
}

dp_random *
dp_backend_random(void)
{
	BackendRandom *state = &backend_random;
	bool		want_seed = seed_setting != NULL && seed_setting[0] != '\0';
	/* MyProcPid is set right after fork: a fork check without a system call */
	pid_t		self = MyProcPid;

	if (!state->library_ready)
	{
		if (!dp_random_library_init())
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("could not initialize libsodium")));
		state->library_ready = true;
	}

	if (want_seed)
	{
		/* before keying and before the caller draws anything */
		seed_in_force_check();
		if (!state->stream.keyed || !state->seeded || state->owner != self ||
			state->generation != seed_generation)
		{
			dp_random_wipe(&state->stream);
			dp_random_init_keyed(&state->stream, seed_setting, strlen(seed_setting));
			state->seeded = true;
		}
	}
	else if (!state->stream.keyed || state->seeded || state->owner != self)
	{
		dp_random_wipe(&state->stream);
		dp_random_init_secure(&state->stream);
		state->seeded = false;
	}
	state->owner = self;
	state->generation = seed_generation;

	/*
	 * Fresh noise draws through the constant-time table sampler, and so do
	 * the states this stream starts (dp_counter.table_sampler).  A seeded
	 * stream keeps the reference sampler, so that a seed gives the same
	 * values in every version (regression tests, reproducible demos).  The
	 * cache serves keyed draws of table-sampler states in every session.
	 * Fresh discrete Gaussian noise decides its acceptance in constant time,
	 * and fresh discrete Laplace noise at large scales takes its low bits by
	 * rejection (dp_laplace_low.h); keyed noise (derived streams) keeps the
	 * reference test and the table sampler alone, so that a key's noise
	 * never changes.
	 */
	if (state->sampler_context == NULL)
	{
		state->sampler_context = AllocSetContextCreate(TopMemoryContext,
													   "dp_stream sampler tables",
													   ALLOCSET_DEFAULT_SIZES);
		state->samplers.allocate = sampler_allocate;
		state->samplers.release_all = sampler_release_all;
		state->samplers.context = state->sampler_context;
	}
	state->stream.samplers = &state->samplers;
	state->stream.table_sampler = !want_seed;
	state->stream.constant_time_gaussian = !want_seed;
	state->stream.laplace_low = !want_seed;
	/*
	 * A batch of keyed terms (dp_term_batch.h) is attached to the stream
	 * only while one dp_statistic_push runs, from its stack; an error raised
	 * inside it (a sampler table's allocation) would leave the pointer to a
	 * frame that is gone, so every hand-out clears it.
	 */
	state->stream.batch = NULL;
	return &state->stream;
}
