/*
 * dp_stream.c
 *		Module initialisation, the dp_stream.seed setting and the backend's
 *		noise source.
 *
 * The noise source is the one piece of process-wide state besides settings:
 * a ChaCha20 key drawn from the operating system on first use in each
 * process (shared/DESIGN.md section 4).  It is re-keyed when the process id
 * changes, so a fork never shares keystream, and it is never filled in the
 * postmaster even when the library is preloaded, because nothing draws noise
 * there.
 */
#include "dp_stream.h"

#include "miscadmin.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

static char *seed_setting = NULL;
/* bumped whenever dp_stream.seed is assigned, so SET restarts the stream */
static uint64 seed_generation = 0;

typedef struct BackendRandom
{
	dp_random	stream;
	pid_t		owner;
	bool		seeded;
	uint64		generation;
	bool		library_ready;
} BackendRandom;

static BackendRandom backend_random;

static void
seed_assign_hook(const char *newval, void *extra)
{
	(void) newval;
	(void) extra;
	seed_generation++;
}

void
_PG_init(void)
{
	DefineCustomStringVariable("dp_stream.seed",
							   "Makes dp_stream noise deterministic, for regression tests only.",
							   "When not empty, noise comes from a ChaCha20 stream keyed by this "
							   "text instead of the operating system's random generator. "
							   "Anyone who knows the seed can remove the noise: never set it "
							   "where privacy matters.",
							   &seed_setting,
							   "",
							   PGC_SUSET,
							   GUC_NOT_IN_SAMPLE | GUC_SUPERUSER_ONLY,
							   NULL,
							   seed_assign_hook,
							   NULL);
	MarkGUCPrefixReserved("dp_stream");
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
	return &state->stream;
}
