/*
 * dp_blt.c
 *		Buffered-linear-Toeplitz (BLT) matrix-factorization continual counting
 *		with an exact integer encoder.
 *
 * References: Dvijotham, McMahan, Pillutla, Steinke, Thakurta, "Efficient
 * and Near-Optimal Noise Generation for Streaming Differential Privacy"
 * (FOCS 2024) for BLT factorizations; McKenna, "Scaling up the banded matrix
 * factorization mechanism" for streaming factorizations; Fichtenberger,
 * Henzinger, Upadhyay, "Constant matters: fine-grained error bound on
 * differentially private continual observation" (ICML 2023) for the
 * square-root factorization the parameters are tuned against.
 *
 * THE MECHANISM
 *
 * A = B C, with C lower-triangular Toeplitz, c_0 = 1 and, for n >= 1,
 * c_n = sum_j omega_j theta_j^(n-1).  The encoder releases w = E(x) + z,
 * E(x) ~ 2^F C x in integers, z integer discrete Gaussian noise; the
 * decoder computes y = 2^-F A C^-1 w, so y_t = S_t + noise + tiny bias.
 * The dyadic theta_j, omega_j (numerators over 2^62) are the definition of
 * C: c_n and every bound below are computed from them, not from the real
 * values the optimizer found.
 *
 * WHY AN INTEGER ENCODER
 *
 * Integer noise added to a real-valued C x would leave the fractional part of
 * C x visible, which reveals x.  So E(x) is an integer vector computed by
 * deterministic integer arithmetic on x alone, and privacy is the usual
 * Gaussian argument for the map x -> E(x): the discrete Gaussian of variance
 * parameter sigma^2 added to an integer-valued function of L2 sensitivity
 * s is (s^2 / (2 sigma^2))-zCDP (Canonne, Kamath, Steinke, "The Discrete
 * Gaussian for Differential Privacy", NeurIPS 2020), so sigma^2 =
 * s^2 / (2 rho) gives rho-zCDP.  Only s must be an honest upper bound for the
 * rounded encoder E, which is not linear.
 *
 * THE ENCODER AND ITS ROUNDING
 *
 * Inputs are integers with |x_t| 2^F <= 2^40 (the counter clamps into
 * [0, max_per_step] and F = 40 - ceil(log2 max_per_step)).  Buffers s_j are
 * in units of 2^-(F + G), G guard bits; at step t
 *
 *	 e_t = x_t 2^F + round(2^-G sum_j round(omega_j s_j))
 *	 s_j <- round(theta_j s_j) + x_t 2^(F + G)
 *
 * where round(a / 2^b) is integer arithmetic (mul_shift_round).  Against the
 * exact S_j(t) = 2^(F+G) sum_{u<t} theta_j^(t-1-u) x_u, the buffer error
 * eps_j = s_j - S_j follows eps <- theta eps + rho with |rho| <= 1/2, so
 * |eps_j(t)| <= (1/2) sum_{k<t} theta_j^k <= min(t, 1/(1-theta_j)) / 2.
 * Hence, in units of 2^-F,
 *
 *	 |e_t - 2^F (C x)_t| <= r = 1/2 + 2^-G sum_j (1/2 + omega_j m_j / 2),
 *	 m_j = min(T, 1/(1-theta_j)),
 *
 * (the final rounding, each product's rounding, each buffer's error).
 *
 * THE SENSITIVITY
 *
 * Let x, x' differ only at step u, by at most Delta.  Both runs perform the
 * same operations on the same values before u, so E(x)_t = E(x')_t for t < u
 * (and their rounding errors agree up to and including step u).  For t >= u
 * write E(x)_t = 2^F (C x)_t + err_t with |err_t| <= r.  Then
 *
 *	 ||E(x) - E(x')||_2 <= 2^F ||C (x - x')||_2 + ||err - err'||_2
 *					   <= 2^F Delta sqrt(sum_{n<T} c_n^2) + 2 r sqrt(T),
 *
 * the first term because x - x' is Delta' e_u with |Delta'| <= Delta and the
 * column u of C is (c_0, .., c_{T-1-u}).  sum_{n<T} c_n^2 =
 * 1 + sum_{j,k} omega_j omega_k (1 - (theta_j theta_k)^(T-1)) /
 * (1 - theta_j theta_k), every term positive, is evaluated in long double
 * with 1 - theta_j theta_k exact from the integer numerators and a relative
 * margin of 2^-40, far above the error of the few correctly rounded
 * operations per term even when long double is only a double.  So
 * dp_blt_sensitivity_bound is an upper bound on the sensitivity of the map
 * actually computed, and z with variance parameter bound^2 / (2 rho) gives
 * rho-zCDP for the whole of w, hence for y and for every state the product
 * keeps apart from the encoder buffers.
 *
 * THE STATE IS NOT PAN-PRIVATE
 *
 * The encoder buffers hold exact (rounded) decayed sums of the raw data, so
 * a stored state reveals the data; the product must seal it.
 *
 * OVERFLOW
 *
 * With |x| 2^F <= 2^40, |S_j(t)| <= 2^(40+G) m_j and |eps_j| <= m_j / 2, so
 * |s_j| <= 2^(40+G) m_j (1 + 2^-41).  dp_blt_design takes the largest
 * G <= 40 with that bound below 2^120 for the design horizon (G = 78 - k
 * always qualifies for the horizon 2^k), and dp_blt_params_valid checks it.
 * mul_shift_round forms the 191-bit product of a |value| < 2^127 and a
 * factor < 2^63 in two halves, and its results here are below 2^121; the sum
 * of at most 5 of them is below 2^124, and e_t is below
 * 2^40 (1 + sum_j omega_j m_j) + r < 2^115.  Nothing overflows 128 bits.
 *
 * THE LIMITS OF 128 BITS
 *
 * The buffers must resolve about 2^-G of an input while holding up to
 * 2^40 T of them, and r grows like 2^-G sum_j omega_j m_j ~ 2^-G sqrt(T).
 * With G from the rule above, the rounding term 2 r sqrt(T) costs under
 * 1e-6 of the sensitivity up to T = 2^40, 1e-4 at 2^56 and 11% at 2^62;
 * the bound always includes it, so this is a cost in accuracy, never in
 * privacy.
 *
 * THE DECODER
 *
 * Post-processing of w only.  It solves C v = w 2^Gd by the same recursion
 * run backwards (forward substitution), v_t = w_t 2^Gd - sum_j round(omega_j
 * s'_j), s'_j <- round(theta_j s'_j) + v_t, and keeps Y_t = sum_{u<=t} v_u;
 * y_t = 2^-(F+Gd) Y_t.  With the same buffer argument, the computed v solves
 * C v = w 2^Gd - eta with |eta_t| <= sum_j (1/2 + omega_j m_j / 2), so
 * Y = A C^-1 w 2^Gd - B eta and the bias is at most 2^-(F+Gd) max|eta|
 * sum_{n<t} |H_n| (dp_blt_decoder_bias_bound), whatever the noise.  Its
 * buffers carry noise as well as data, so it keeps Gd = G - 16 guard bits
 * (headroom for noise 2^16 times the encoder's scale) and checks every step.
 *
 * THE VARIANCE
 *
 * h = coefficients of C^-1, H_n = sum_{i<=n} h_i (the Toeplitz coefficients
 * of B = A C^-1).  1/C(z) has poles at z = 1/phi_k, where phi_k are the roots
 * of the secular equation g(p) = 1 + sum_j omega_j / (p - theta_j) = 0: one
 * in each gap between consecutive theta_j and one below the least theta_j
 * (in (-1, theta_min) when sum_j omega_j / (1 + theta_j) < 1, which
 * dp_blt_params_valid requires).  Partial fractions give
 * H_n = K + sum_k a_k phi_k^n with K = 1 / C(1) = 1 / (1 + sum omega_j /
 * (1 - theta_j)) and a_k = 1 / ((1 - phi_k) sum_j omega_j / (phi_k -
 * theta_j)^2) > 0, so sum_{n<t} H_n^2 and its mean over t are sums of
 * geometric series (variance_sum, mean_variance_sum).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "dp_blt.h"

#define PARAM_ONE (((int64_t) 1) << DP_BLT_PARAM_BITS)
/* every buffer the encoder keeps stays below this (see OVERFLOW above) */
#define ENCODER_BUFFER_LIMIT (((dp_int128) 1) << 120)
/* the decoder refuses a step that would take a word past this */
#define DECODER_WORD_LIMIT (((dp_int128) 1) << 120)
#define GUARD_BITS_MAX 40
/* relative margin for upward-safe long double evaluation (see above) */
#define UPWARD_MARGIN (1.0L + 0x1p-40L)

_Static_assert(LDBL_MANT_DIG >= 53, "the error margins assume at least double precision");

/*
 * round(value * factor / 2^shift), halves away from zero, for |value| < 2^127,
 * 0 <= factor < 2^63 and 1 <= shift <= 126, when the result is below 2^127.
 * The product (up to 190 bits) is formed as upper * 2^64 + lower from two
 * 64 x 64 -> 128 products, so nothing is lost.
 */
static dp_int128
mul_shift_round(dp_int128 value, uint64_t factor, int shift)
{
	int			negative = value < 0;
	dp_uint128	magnitude = negative ? -(dp_uint128) value : (dp_uint128) value;
	uint64_t	value_low = (uint64_t) magnitude;
	uint64_t	value_high = (uint64_t) (magnitude >> 64);
	dp_uint128	low_product = (dp_uint128) value_low * factor;

	/* value_high < 2^63 and factor < 2^63: no overflow */
	dp_uint128	upper = (dp_uint128) value_high * factor + (low_product >> 64);
	uint64_t	lower = (uint64_t) low_product;
	dp_uint128	result;

	if (shift <= 64)
	{
		uint64_t	half = ((uint64_t) 1) << (shift - 1);
		uint64_t	rounded_lower = lower + half;

		upper += rounded_lower < lower; /* carry */
		lower = rounded_lower;
		if (shift == 64)
			result = upper;
		else
			result = (upper << (64 - shift)) | (lower >> shift);
	}
	else
	{
		upper += ((dp_uint128) 1) << (shift - 65);
		result = upper >> (shift - 64);
	}
	return negative ? -(dp_int128) result : (dp_int128) result;
}

/* round(value / 2^shift), halves away from zero; shift 0 is the identity */
static dp_int128
shift_round(dp_int128 value, int shift)
{
	return shift == 0 ? value : mul_shift_round(value, 1, shift);
}

static dp_int128
magnitude_of(dp_int128 value)
{
	return value < 0 ? -value : value;
}

static int
decoder_guard_bits(const dp_blt_params *params)
{
	return params->guard_bits > DP_BLT_DECODER_HEADROOM_BITS
		? params->guard_bits - DP_BLT_DECODER_HEADROOM_BITS : 0;
}

/* ceil(log2 horizon) for horizon >= 1 */
static int
horizon_exponent(int64_t horizon)
{
	int			k = 0;

	while (k < 62 && (((int64_t) 1) << k) < horizon)
		k++;
	return k;
}

/*
 * The most guard bits (up to 40) that keep every encoder buffer below 2^120
 * over the design horizon: G = 78 - k always qualifies (m_j <= 2^k), and
 * the slowest buffer's m_j = 1 / (1 - theta_j) is usually a few bits less.
 */
static int
guard_bits_for(dp_blt_params *params)
{
	for (params->guard_bits = GUARD_BITS_MAX; params->guard_bits > 0; params->guard_bits--)
		if (dp_blt_encoder_buffer_bound(params, params->design_horizon) <
			(long double) ENCODER_BUFFER_LIMIT)
			break;
	return params->guard_bits;
}

/* ---------------------------------------------------------------------
 * The table: parameters for horizons 2^1 .. 2^62, tuned by
 * bench/blt_design.c --table to minimize the mean over t <= 2^k of the
 * release variance, sum_{n<2^k} c_n^2 * mean_t sum_{n<t} H_n^2, with the
 * fewest buffers (at most 5) within 0.1% of the best found with 5.
 * Generated, not edited by hand; the comment of each row is the bench's.
 * --------------------------------------------------------------------- */
#define DP_BLT_TABLE_ROWS 62

typedef struct blt_table_row
{
	int			buffers;
	int64_t		theta_num[DP_BLT_MAX_BUFFERS];
	int64_t		omega_num[DP_BLT_MAX_BUFFERS];
} blt_table_row;

/* BEGIN GENERATED TABLE */
static const blt_table_row blt_table[DP_BLT_TABLE_ROWS] = {
	/* 2^1: d = 1, mean variance 1.357003 (5 buffers: 1.357003) */
	{1, {INT64_C(1436870996740639232), INT64_C(0), INT64_C(0), INT64_C(0), INT64_C(0)}, {INT64_C(1410503419220260352), INT64_C(0), INT64_C(0), INT64_C(0), INT64_C(0)}},
	/* 2^2: d = 1, mean variance 1.815599 (5 buffers: 1.815607) */
	{1, {INT64_C(2469901961251461120), INT64_C(0), INT64_C(0), INT64_C(0), INT64_C(0)}, {INT64_C(1986320639366196480), INT64_C(0), INT64_C(0), INT64_C(0), INT64_C(0)}},
	/* 2^3: d = 1, mean variance 2.385071 (5 buffers: 2.384943) */
	{1, {INT64_C(3275964667907553536), INT64_C(0), INT64_C(0), INT64_C(0), INT64_C(0)}, {INT64_C(2197409544740362496), INT64_C(0), INT64_C(0), INT64_C(0), INT64_C(0)}},
	/* 2^4: d = 2, mean variance 3.065819 (5 buffers: 3.065819) */
	{2, {INT64_C(3889542409819229184), INT64_C(830011515383308800), INT64_C(0), INT64_C(0), INT64_C(0)}, {INT64_C(1900319083526834688), INT64_C(400713041153035840), INT64_C(0), INT64_C(0), INT64_C(0)}},
	/* 2^5: d = 2, mean variance 3.855635 (5 buffers: 3.855635) */
	{2, {INT64_C(4231070941875797568), INT64_C(2008695798560631808), INT64_C(0), INT64_C(0), INT64_C(0)}, {INT64_C(1511737555715569152), INT64_C(815236009639600000), INT64_C(0), INT64_C(0), INT64_C(0)}},
	/* 2^6: d = 2, mean variance 4.752026 (5 buffers: 4.751245) */
	{2, {INT64_C(4411087893957082976), INT64_C(2719955083476717312), INT64_C(0), INT64_C(0), INT64_C(0)}, {INT64_C(1172896081534819840), INT64_C(1138493213349123712), INT64_C(0), INT64_C(0), INT64_C(0)}},
	/* 2^7: d = 3, mean variance 5.749918 (5 buffers: 5.749915) */
	{3, {INT64_C(4512478205251506656), INT64_C(3747420948272350080), INT64_C(1698364939066706432), INT64_C(0), INT64_C(0)}, {INT64_C(830754920033568512), INT64_C(880190506190061312), INT64_C(614375289465131776), INT64_C(0), INT64_C(0)}},
	/* 2^8: d = 3, mean variance 6.849943 (5 buffers: 6.849661) */
	{3, {INT64_C(4561310725806991952), INT64_C(4111971923134931008), INT64_C(2287018158023199232), INT64_C(0), INT64_C(0)}, {INT64_C(603890301123103872), INT64_C(807927590748796288), INT64_C(902388082592100736), INT64_C(0), INT64_C(0)}},
	/* 2^9: d = 3, mean variance 8.051168 (5 buffers: 8.049091) */
	{3, {INT64_C(4585912743710897728), INT64_C(4311234608322296256), INT64_C(2718337985918971648), INT64_C(0), INT64_C(0)}, {INT64_C(441036845375291904), INT64_C(732351462598848256), INT64_C(1121017581527988992), INT64_C(0), INT64_C(0)}},
	/* 2^10: d = 3, mean variance 9.355469 (5 buffers: 9.347300) */
	{3, {INT64_C(4598375121874482196), INT64_C(4426068241895424640), INT64_C(3060402995104418304), INT64_C(0), INT64_C(0)}, {INT64_C(324340234289498240), INT64_C(654320791905312128), INT64_C(1284573719459022592), INT64_C(0), INT64_C(0)}},
	/* 2^11: d = 4, mean variance 10.744814 (5 buffers: 10.743740) */
	{4, {INT64_C(4605316122688657222), INT64_C(4542688780023682120), INT64_C(2438552383375144448), INT64_C(4174905361437146368), INT64_C(0)}, {INT64_C(218286978452653344), INT64_C(344827072195912064), INT64_C(981627674025489920), INT64_C(755161755450750848), INT64_C(0)}},
	/* 2^12: d = 4, mean variance 12.241925 (5 buffers: 12.238171) */
	{4, {INT64_C(4608449710047111053), INT64_C(4572596493341866792), INT64_C(4311498456989246208), INT64_C(2735342869378973696), INT64_C(0)}, {INT64_C(157459830156622688), INT64_C(282228200660772224), INT64_C(714078023626515712), INT64_C(1132255464192163328), INT64_C(0)}},
	/* 2^13: d = 4, mean variance 13.840701 (5 buffers: 13.830699) */
	{4, {INT64_C(4589085377869233816), INT64_C(4402433162151270528), INT64_C(4610031822434176000), INT64_C(2991007951636567808), INT64_C(0)}, {INT64_C(232082869174178272), INT64_C(663829928511755776), INT64_C(114222410875551360), INT64_C(1255484756085926912), INT64_C(0)}},
	/* 2^14: d = 5, mean variance 15.521840 (5 buffers: 15.521840) */
	{5, {INT64_C(4610886388183011745), INT64_C(4602743973687383647), INT64_C(4550162965962498816), INT64_C(4215227545589401344), INT64_C(2520227869419732480)}, {INT64_C(77674529879912448), INT64_C(128410859477030848), INT64_C(317656453559787712), INT64_C(745906069022065280), INT64_C(1024682364822643840)}},
	/* 2^15: d = 5, mean variance 17.312618 (5 buffers: 17.312618) */
	{5, {INT64_C(4611280988547148028), INT64_C(4606752438131927918), INT64_C(4572519829760409672), INT64_C(4315548959150583296), INT64_C(2746776201470551040)}, {INT64_C(55787343085589280), INT64_C(101381321605859056), INT64_C(274726225947329760), INT64_C(712777081518416512), INT64_C(1138869013977868928)}},
	/* 2^16: d = 5, mean variance 19.204663 (5 buffers: 19.204663) */
	{5, {INT64_C(4611480048818729188), INT64_C(4608925767536049161), INT64_C(4586426509654167444), INT64_C(4389079489341501888), INT64_C(2950157212298321408)}, {INT64_C(40222746242107512), INT64_C(80477848708959216), INT64_C(237021840805560224), INT64_C(673504187438132352), INT64_C(1237147262866146560)}},
	/* 2^17: d = 5, mean variance 21.200299 (5 buffers: 21.200299) */
	{5, {INT64_C(4611580875012279123), INT64_C(4610124417395901371), INT64_C(4595238961854765376), INT64_C(4443577473545066336), INT64_C(3132933576390986240)}, {INT64_C(29100630426320552), INT64_C(64075816172594520), INT64_C(204052104425382528), INT64_C(631099752354221056), INT64_C(1319981460103178496)}},
	/* 2^18: d = 5, mean variance 23.302617 (5 buffers: 23.302617) */
	{5, {INT64_C(4611632152006239093), INT64_C(4610794650155995685), INT64_C(4600898905718338952), INT64_C(4484283489804625296), INT64_C(3297093042689470208)}, {INT64_C(21116069834805804), INT64_C(51094378106059136), INT64_C(175331448202915072), INT64_C(587564716448376576), INT64_C(1387958810261526016)}},
	/* 2^19: d = 5, mean variance 25.515530 (5 buffers: 25.515530) */
	{5, {INT64_C(4611658331107050772), INT64_C(4611173566404134167), INT64_C(4604570883370110650), INT64_C(4514861016669647440), INT64_C(3444336726576724224)}, {INT64_C(15359952959556266), INT64_C(40768443152664400), INT64_C(150390400686480416), INT64_C(544233922236231616), INT64_C(1441820640768117248)}},
	/* 2^20: d = 5, mean variance 27.843813 (5 buffers: 27.843813) */
	{5, {INT64_C(4611671744792700309), INT64_C(4611389689271754701), INT64_C(4606971665803416419), INT64_C(4537931358493695408), INT64_C(3576191008633289984)}, {INT64_C(11195349471725332), INT64_C(32531562024943380), INT64_C(128787428839019552), INT64_C(501989137509820224), INT64_C(1482446449542304000)}},
	/* 2^21: d = 5, mean variance 30.293127 (5 buffers: 30.293127) */
	{5, {INT64_C(4611678640313474289), INT64_C(4611513845579652517), INT64_C(4608550892713339765), INT64_C(4555397716092327096), INT64_C(3694058841257172224)}, {INT64_C(8173040925439744), INT64_C(25951323780863592), INT64_C(110118499809153920), INT64_C(461400754913811904), INT64_C(1510814810453737472)}},
	/* 2^22: d = 5, mean variance 32.870029 (5 buffers: 32.870029) */
	{5, {INT64_C(4611682195539292271), INT64_C(4611585586923831184), INT64_C(4609594782752029058), INT64_C(4568658574664473880), INT64_C(3799243112584297728)}, {INT64_C(5974229844614814), INT64_C(20691260752281700), INT64_C(94017766775412624), INT64_C(422823852389514752), INT64_C(1527967584652953600)}},
	/* 2^23: d = 5, mean variance 35.581982 (5 buffers: 35.581982) */
	{5, {INT64_C(4611684033412707266), INT64_C(4611627241071572598), INT64_C(4610287561980149309), INT64_C(4578749963929688376), INT64_C(3892955349543564032)}, {INT64_C(4371295111298896), INT64_C(16486067100060040), INT64_C(80157830802921488), INT64_C(386461205764607168), INT64_C(1534978269747077120)}},
	/* 2^24: d = 5, mean variance 38.437355 (5 buffers: 38.437355) */
	{5, {INT64_C(4611684985746285170), INT64_C(4611651522651634442), INT64_C(4610748829436197378), INT64_C(4586444391919124536), INT64_C(3976320009270707968)}, {INT64_C(3200867307245912), INT64_C(13125203351719254), INT64_C(68247926824180856), INT64_C(352410119151355264), INT64_C(1532916845494105088)}},
	/* 2^25: d = 5, mean variance 41.445424 (5 buffers: 41.445424) */
	{5, {INT64_C(4611685480258718898), INT64_C(4611665724622614938), INT64_C(4611056793414464267), INT64_C(4592320948639563356), INT64_C(4050375730654396416)}, {INT64_C(2345165318910689), INT64_C(10440570564782386), INT64_C(58031104979003816), INT64_C(320693046665516928), INT64_C(1522834917598458368)}},
	/* 2^26: d = 5, mean variance 44.616376 (5 buffers: 44.616376) */
	{5, {INT64_C(4611685737527476806), INT64_C(4611674054702604112), INT64_C(4611262881362050306), INT64_C(4596815469717743904), INT64_C(4116078327448808704)}, {INT64_C(1718948555555373), INT64_C(8297653109922881), INT64_C(49280951676604456), INT64_C(291281807012197696), INT64_C(1505745108044712960)}},
	/* 2^27: d = 5, mean variance 47.961312 (5 buffers: 47.961312) */
	{5, {INT64_C(4611685871599696980), INT64_C(4611678952578920385), INT64_C(4611401067063185352), INT64_C(4600257240810563922), INT64_C(4174303299365606592)}, {INT64_C(1260329779008052), INT64_C(6588560201774506), INT64_C(41798846722621600), INT64_C(264112045662355008), INT64_C(1482603546436765184)}},
	/* 2^28: d = 5, mean variance 51.492260 (5 buffers: 51.492260) */
	{5, {INT64_C(4611685941578345154), INT64_C(4611681838497536983), INT64_C(4611493883258890035), INT64_C(4602895744955276407), INT64_C(4225849761948928448)}, {INT64_C(924265293281771), INT64_C(5226703371116190), INT64_C(35410747541530576), INT64_C(239095221599482464), INT64_C(1454310238302127872)}},
	/* 2^29: d = 5, mean variance 55.222186 (5 buffers: 55.222186) */
	{5, {INT64_C(4611685978155601210), INT64_C(4611683542097914641), INT64_C(4611556319734342175), INT64_C(4604920394825624807), INT64_C(4271441901758891328)}, {INT64_C(677903979947432), INT64_C(4142571775207735), INT64_C(29964838082586656), INT64_C(216128199666603424), INT64_C(1421697170247654144)}},
	/* 2^30: d = 5, mean variance 59.165023 (5 buffers: 59.165023) */
	{5, {INT64_C(4611685997299338454), INT64_C(4611684549414345171), INT64_C(4611598376365218270), INT64_C(4606475365896730290), INT64_C(4311736520685445248)}, {INT64_C(497249023665574), INT64_C(3280382805500317), INT64_C(25328784153670072), INT64_C(195097704740803872), INT64_C(1385527032176502784)}},
	/* 2^31: d = 5, mean variance 63.335690 (5 buffers: 63.335690) */
	{5, {INT64_C(4611686007331022547), INT64_C(4611685145919079450), INT64_C(4611626739758109638), INT64_C(4607670573853786418), INT64_C(4347325161933072960)}, {INT64_C(364748626089120), INT64_C(2595369114245884), INT64_C(21387547483293896), INT64_C(175885569429736416), INT64_C(1346491491994806528)}},
	/* 2^32: d = 5, mean variance 67.750139 (5 buffers: 67.750139) */
	{5, {INT64_C(4611686012593834985), INT64_C(4611685499631898791), INT64_C(4611645889230160143), INT64_C(4608589925305609907), INT64_C(4378738954370549536)}, {INT64_C(267553151239011), INT64_C(2051651977204397), INT64_C(18041450249149068), INT64_C(158372329463926464), INT64_C(1305216885972191744)}},
	/* 2^33: d = 5, mean variance 72.425389 (5 buffers: 72.425389) */
	{5, {INT64_C(4611686015357736638), INT64_C(4611685709634020433), INT64_C(4611658831033842256), INT64_C(4609297571139674119), INT64_C(4406453860725800960)}, {INT64_C(196250325677531), INT64_C(1620501868419420), INT64_C(15204184519209896), INT64_C(142439298003188112), INT64_C(1262261819998851328)}},
	/* 2^34: d = 5, mean variance 77.379581 (5 buffers: 77.379581) */
	{5, {INT64_C(4611686016810723402), INT64_C(4611685834456314856), INT64_C(4611667585485881243), INT64_C(4609842601798994757), INT64_C(4430896406676775872)}, {INT64_C(143939983303740), INT64_C(1278932292916282), INT64_C(12801295583231584), INT64_C(127969856284902528), INT64_C(1218115858914382336)}},
	/* 2^35: d = 5, mean variance 82.632036 (5 buffers: 82.632036) */
	{5, {INT64_C(4611686017575271616), INT64_C(4611685908726768945), INT64_C(4611673512534171496), INT64_C(4610262631500816087), INT64_C(4452443927002992928)}, {INT64_C(105563723360798), INT64_C(1008575205581973), INT64_C(10768627034779724), INT64_C(114852356066505616), INT64_C(1173222539573130240)}},
	/* 2^36: d = 5, mean variance 88.203317 (5 buffers: 88.203317) */
	{5, {INT64_C(4611686017977918216), INT64_C(4611685952960986030), INT64_C(4611677528483690876), INT64_C(4610586524499293208), INT64_C(4471436759822441920)}, {INT64_C(77410509106920), INT64_C(794775116708187), INT64_C(9050985508129394), INT64_C(102977761639527504), INT64_C(1127948600471997056)}},
	/* 2^37: d = 5, mean variance 94.115304 (5 buffers: 94.115304) */
	{5, {INT64_C(4611686018190143744), INT64_C(4611685979329946359), INT64_C(4611680251447565704), INT64_C(4610836375784498944), INT64_C(4488169742339994272)}, {INT64_C(56758392600059), INT64_C(625847610516079), INT64_C(7601207433891988), INT64_C(92247033111338032), INT64_C(1082644789671999872)}},
	/* 2^38: d = 5, mean variance 100.391269 (5 buffers: 100.391269) */
	{5, {INT64_C(4611686018302082273), INT64_C(4611685995061866883), INT64_C(4611682099050090822), INT64_C(4611029228727161809), INT64_C(4502913521024433632)}, {INT64_C(41610323783921), INT64_C(492478088063703), INT64_C(6378634069796631), INT64_C(82560823808430368), INT64_C(1037565368765153920)}},
	/* 2^39: d = 5, mean variance 107.055968 (5 buffers: 107.055968) */
	{5, {INT64_C(4611686018361166995), INT64_C(4611686004454692850), INT64_C(4611683353428803497), INT64_C(4611178150896235153), INT64_C(4515899298015669616)}, {INT64_C(30500388086316), INT64_C(387273359989856), INT64_C(5348677913374312), INT64_C(73829505561774096), INT64_C(992974840164961280)}},
	/* 2^40: d = 5, mean variance 114.135725 (5 buffers: 114.135725) */
	{5, {INT64_C(4611686018392373082), INT64_C(4611686010066807393), INT64_C(4611684205499702106), INT64_C(4611293181210689822), INT64_C(4527337192416425408)}, {INT64_C(22353252466303), INT64_C(304346575134564), INT64_C(4481878242363630), INT64_C(65969329724805024), INT64_C(949066097385044096)}},
	/* 2^41: d = 5, mean variance 121.658540 (5 buffers: 121.658540) */
	{5, {INT64_C(4611686018408864614), INT64_C(4611686013422092243), INT64_C(4611684784616234202), INT64_C(4611382072964773092), INT64_C(4537409595677856976)}, {INT64_C(16379674474794), INT64_C(239031440448866), INT64_C(3753069287191611), INT64_C(58901787558417592), INT64_C(906017317991978624)}},
	/* 2^42: d = 5, mean variance 129.654191 (5 buffers: 129.654191) */
	{5, {INT64_C(4611686018417584171), INT64_C(4611686015429244014), INT64_C(4611685178426597064), INT64_C(4611450801164352094), INT64_C(4546284198294825672)}, {INT64_C(12000434295764), INT64_C(187622700621094), INT64_C(3140618235146329), INT64_C(52551838915075120), INT64_C(863916251510771072)}},
	/* 2^43: d = 5, mean variance 138.154353 (5 buffers: 138.154353) */
	{5, {INT64_C(4611686018422197282), INT64_C(4611686016630849674), INT64_C(4611685446324806309), INT64_C(4611503926454147374), INT64_C(4554090083244135568)}, {INT64_C(8790167193623), INT64_C(147181940612993), INT64_C(2626588527181017), INT64_C(46857800574675432), INT64_C(822978188798837888)}},
	/* 2^44: d = 5, mean variance 147.192717 (5 buffers: 147.192717) */
	{5, {INT64_C(4611686018424638487), INT64_C(4611686017350276549), INT64_C(4611685628659935427), INT64_C(4611545027416892122), INT64_C(4560968768862604000)}, {INT64_C(6437895859285), INT64_C(115400465082834), INT64_C(2195341133943965), INT64_C(41752240070165648), INT64_C(783196224454267008)}},
	/* 2^45: d = 5, mean variance 156.805124 (5 buffers: 156.805124) */
	{5, {INT64_C(4611686018425931110), INT64_C(4611686017781365097), INT64_C(4611685752801959737), INT64_C(4611576834283741391), INT64_C(4567023450489626832)}, {INT64_C(4714134890969), INT64_C(90436162079775), INT64_C(1833846368232843), INT64_C(37179446942968928), INT64_C(744683540541757952)}},
	/* 2^46: d = 5, mean variance 167.029706 (5 buffers: 167.029706) */
	{5, {INT64_C(4611686018426615788), INT64_C(4611686018039766850), INT64_C(4611685837342324994), INT64_C(4611601452193822961), INT64_C(4572359539284677456)}, {INT64_C(3451345169380), INT64_C(70838553465460), INT64_C(1531111328891591), INT64_C(33086828405889520), INT64_C(707449871466588416)}},
	/* 2^47: d = 5, mean variance 177.907031 (5 buffers: 177.907031) */
	{5, {INT64_C(4611686018194735467), INT64_C(4611685894951745337), INT64_C(4611620501984926329), INT64_C(4577056402976858308), INT64_C(4611686018426978537)}, {INT64_C(55459060599254), INT64_C(1277656469369711), INT64_C(29429472673290780), INT64_C(671533207770901376), INT64_C(2526412572642)}},
	/* 2^48: d = 5, mean variance 189.480271 (5 buffers: 189.480271) */
	{5, {INT64_C(4611686018287691996), INT64_C(4611685934188259041), INT64_C(4611635243159196623), INT64_C(4581182964658064852), INT64_C(4611686018427170781)}, {INT64_C(43405187016407), INT64_C(1065877049383054), INT64_C(26167606715224564), INT64_C(637139002850313216), INT64_C(1849239710604)}},
	/* 2^49: d = 5, mean variance 201.795364 (5 buffers: 201.795364) */
	{5, {INT64_C(4611686018427272745), INT64_C(4611686018343491424), INT64_C(4611685960953252977), INT64_C(4611646659846484945), INT64_C(4584819671596446288)}, {INT64_C(1353066424646), INT64_C(33952389730827), INT64_C(888671273221598), INT64_C(23254399692258912), INT64_C(603996721714168320)}},
	/* 2^50: d = 5, mean variance 214.901201 (5 buffers: 214.901201) */
	{5, {INT64_C(4611686018427326800), INT64_C(4611686018376984423), INT64_C(4611685979207407552), INT64_C(4611655515637093681), INT64_C(4588022621418867660)}, {INT64_C(990012068747), INT64_C(26549512473723), INT64_C(740631885189996), INT64_C(20653142146188700), INT64_C(572288404636242368)}},
	/* 2^51: d = 5, mean variance 228.849815 (5 buffers: 228.849815) */
	{5, {INT64_C(4611686018427355475), INT64_C(4611686018397092026), INT64_C(4611685991662627646), INT64_C(4611662375500762708), INT64_C(4590852481593077764)}, {INT64_C(724246120538), INT64_C(20752787077289), INT64_C(616764732503357), INT64_C(18331913660485380), INT64_C(541707121998570176)}},
	/* 2^52: d = 5, mean variance 243.696590 (5 buffers: 243.696590) */
	{5, {INT64_C(4611686018427370685), INT64_C(4611686018409186292), INT64_C(4611686000157839667), INT64_C(4611667686079236009), INT64_C(4593329119819774620)}, {INT64_C(529846324024), INT64_C(16210409813224), INT64_C(513655609494259), INT64_C(16270612154787912), INT64_C(512791475844699904)}},
	/* 2^53: d = 5, mean variance 259.500478 (5 buffers: 259.500478) */
	{5, {INT64_C(4611686018427378764), INT64_C(4611686018416436887), INT64_C(4611686005946085756), INT64_C(4611671794471443097), INT64_C(4595526601856873262)}, {INT64_C(387472925305), INT64_C(12669181397899), INT64_C(427641040445555), INT64_C(14437014666880530), INT64_C(484857333308231808)}},
	/* 2^54: d = 5, mean variance 276.324235 (5 buffers: 276.324235) */
	{5, {INT64_C(4611686018427383049), INT64_C(4611686018420794322), INT64_C(4611686009886965434), INT64_C(4611674974147334839), INT64_C(4597444182641373538)}, {INT64_C(283459745439), INT64_C(9900448368339), INT64_C(356315734727081), INT64_C(12809944654909874), INT64_C(458637150557776256)}},
	/* 2^55: d = 5, mean variance 294.234648 (5 buffers: 294.234648) */
	{5, {INT64_C(4611686018427385325), INT64_C(4611686018423418253), INT64_C(4611686012597445020), INT64_C(4611677474237678297), INT64_C(4599161838000006490)}, {INT64_C(207263595934), INT64_C(7730309876642), INT64_C(296229879961878), INT64_C(11337518651820430), INT64_C(433069372488546688)}},
	/* 2^56: d = 5, mean variance 313.302884 (5 buffers: 313.302884) */
	{5, {INT64_C(4611686018427386534), INT64_C(4611686018424998079), INT64_C(4611686014431336352), INT64_C(4611679380752976661), INT64_C(4600655550013372698)}, {INT64_C(151506486251), INT64_C(6033396757882), INT64_C(246683376577400), INT64_C(10047155752767890), INT64_C(408836906034593088)}},
	/* 2^57: d = 5, mean variance 333.604353 (5 buffers: 333.604353) */
	{5, {INT64_C(4611686018427387177), INT64_C(4611686018425954802), INT64_C(4611686015713253691), INT64_C(4611680864860424884), INT64_C(4601922977844089374)}, {INT64_C(110660280783), INT64_C(4702588933965), INT64_C(204633368489950), INT64_C(8924318892225483), INT64_C(387194257406730368)}},
	/* 2^58: d = 5, mean variance 355.219722 (5 buffers: 355.219722) */
	{5, {INT64_C(4611686018427387516), INT64_C(4611686018426520067), INT64_C(4611686016564004680), INT64_C(4611682012246068034), INT64_C(4603085455038391513)}, {INT64_C(81209454511), INT64_C(3678870460719), INT64_C(170568596860120), INT64_C(7903865437270635), INT64_C(365603213739695616)}},
	/* 2^59: d = 5, mean variance 378.235513 (5 buffers: 378.235513) */
	{5, {INT64_C(4611686018427387699), INT64_C(4611686018426868319), INT64_C(4611686017160081708), INT64_C(4611682908983517731), INT64_C(4604054230073642421)}, {INT64_C(59262433299), INT64_C(2869753529343), INT64_C(141739130808095), INT64_C(7022578683400668), INT64_C(347092104774432832)}},
	/* 2^60: d = 5, mean variance 402.744731 (5 buffers: 402.744731) */
	{5, {INT64_C(4611686018427387793), INT64_C(4611686018427066638), INT64_C(4611686017535662460), INT64_C(4611683548314486051), INT64_C(4604910879234072319)}, {INT64_C(43847215254), INT64_C(2269543207885), INT64_C(119467292908849), INT64_C(6283195042586834), INT64_C(328328508008920512)}},
	/* 2^61: d = 5, mean variance 428.837389 (5 buffers: 428.837389) */
	{5, {INT64_C(4611686018427387846), INT64_C(4611686018427194390), INT64_C(4611686017821093076), INT64_C(4611684143123221493), INT64_C(4605833042083341083)}, {INT64_C(31599516937), INT64_C(1763351891197), INT64_C(98425807380640), INT64_C(5467442370865081), INT64_C(305653370618990976)}},
	/* 2^62: d = 5, mean variance 456.618850 (5 buffers: 456.618850) */
	{5, {INT64_C(4611686018427275640), INT64_C(4611686018427387873), INT64_C(4611686018026302522), INT64_C(4611684567937838291), INT64_C(4606417813277525075)}, {INT64_C(1354022171483), INT64_C(23274980330), INT64_C(81125552397523), INT64_C(4888410875282453), INT64_C(293584402084580416)}},
};
/* END GENERATED TABLE */

dp_status
dp_blt_design(int64_t horizon, dp_blt_params *params)
{
	int			k;
	const blt_table_row *row;

	if (horizon < 1 || horizon > DP_BLT_HORIZON_LIMIT)
		return DP_ERROR_HORIZON;
	k = horizon_exponent(horizon);
	if (k < 1)
		k = 1;
	row = &blt_table[k - 1];
	memset(params, 0, sizeof(*params));
	params->buffers = row->buffers;
	params->design_horizon = ((int64_t) 1) << k;
	for (int j = 0; j < row->buffers; j++)
	{
		params->theta_num[j] = row->theta_num[j];
		params->omega_num[j] = row->omega_num[j];
	}
	guard_bits_for(params);
	return DP_OK;
}

int
dp_blt_fraction_bits(int64_t max_per_step)
{
	int			bits = 0;

	/* bits = ceil(log2 max_per_step), bounded by the accepted range */
	while (bits < 62 && (((int64_t) 1) << bits) < max_per_step)
		bits++;
	return bits >= DP_BLT_INPUT_BITS ? 0 : DP_BLT_INPUT_BITS - bits;
}

int
dp_blt_state_words(const dp_blt_params *params)
{
	return 2 * params->buffers + 1;
}

/* ---------------------------------------------------------------------
 * Real-valued views of the parameters
 * --------------------------------------------------------------------- */

static long double
param_value(int64_t numerator)
{
	return ldexpl((long double) numerator, -DP_BLT_PARAM_BITS);
}

/* 1 - theta_j, exact from the numerator */
static long double
theta_complement(int64_t theta_num)
{
	return ldexpl((long double) (PARAM_ONE - theta_num), -DP_BLT_PARAM_BITS);
}

/* m_j = min(horizon, 1 / (1 - theta_j)), rounded upward */
static long double
memory_length(int64_t theta_num, int64_t horizon)
{
	long double reach = ((long double) PARAM_ONE / (long double) (PARAM_ONE - theta_num)) * UPWARD_MARGIN;

	return reach < (long double) horizon ? reach : (long double) horizon;
}

dp_status
dp_blt_params_valid(const dp_blt_params *params, int64_t horizon)
{
	long double stability = 0;

	if (params->buffers < 1 || params->buffers > DP_BLT_MAX_BUFFERS)
		return DP_ERROR_OPTION;
	if (horizon < 1 || horizon > DP_BLT_HORIZON_LIMIT)
		return DP_ERROR_HORIZON;
	if (params->guard_bits < 0 || params->guard_bits > GUARD_BITS_MAX)
		return DP_ERROR_OPTION;
	for (int j = 0; j < params->buffers; j++)
	{
		if (params->theta_num[j] <= 0 || params->theta_num[j] >= PARAM_ONE ||
			params->omega_num[j] <= 0)
			return DP_ERROR_OPTION;
		for (int k = 0; k < j; k++)
			if (params->theta_num[k] == params->theta_num[j])
				return DP_ERROR_OPTION;
		stability += param_value(params->omega_num[j]) / (1 + param_value(params->theta_num[j]));
	}
	/* the root of the secular equation below theta_min must be above -1 */
	if (stability >= 1 - 0x1p-20L)
		return DP_ERROR_OPTION;
	if (dp_blt_encoder_buffer_bound(params, horizon) >= (long double) ENCODER_BUFFER_LIMIT)
		return DP_ERROR_SENSITIVITY;
	return DP_OK;
}

/* ---------------------------------------------------------------------
 * Encoder and decoder
 * --------------------------------------------------------------------- */

dp_status
dp_blt_encode_step(const dp_blt_params *params, dp_int128 *encoder, int64_t value,
				   int fraction_bits, dp_int128 *encoded)
{
	int			d = params->buffers;
	int			scale_bits = fraction_bits + params->guard_bits;
	dp_int128	scaled_value;
	dp_int128	decayed_sum = 0;

	if (fraction_bits < 0 || fraction_bits > DP_BLT_INPUT_BITS)
		return DP_ERROR_OVERFLOW;
	if (magnitude_of(value) > (((dp_int128) 1) << (DP_BLT_INPUT_BITS - fraction_bits)))
		return DP_ERROR_OVERFLOW;
	/* |value| 2^(F+G) <= 2^(40+G) <= 2^80 */
	scaled_value = ((dp_int128) value) * (((dp_int128) 1) << scale_bits);

	for (int j = 0; j < d; j++)
		decayed_sum += mul_shift_round(encoder[j], (uint64_t) params->omega_num[j], DP_BLT_PARAM_BITS);
	*encoded = ((dp_int128) value) * (((dp_int128) 1) << fraction_bits) +
		shift_round(decayed_sum, params->guard_bits);

	for (int j = 0; j < d; j++)
		encoder[j] = mul_shift_round(encoder[j], (uint64_t) params->theta_num[j], DP_BLT_PARAM_BITS) +
			scaled_value;
	return DP_OK;
}

dp_status
dp_blt_decode_step(const dp_blt_params *params, dp_int128 *decoder, dp_int128 noisy_encoded)
{
	int			d = params->buffers;
	int			guard = decoder_guard_bits(params);
	dp_int128	next[DP_BLT_MAX_BUFFERS];
	dp_int128	solved;
	dp_int128	release;

	/*
	 * Every word is below 2^120 before the step, so each product below is
	 * below 2^121 and the sums below 2^124; checked before anything is
	 * stored, so a refused step leaves the state as it was.
	 */
	if (magnitude_of(noisy_encoded) >= (DECODER_WORD_LIMIT >> guard))
		return DP_ERROR_OVERFLOW;
	solved = noisy_encoded * (((dp_int128) 1) << guard);
	for (int j = 0; j < d; j++)
		solved -= mul_shift_round(decoder[j], (uint64_t) params->omega_num[j], DP_BLT_PARAM_BITS);
	if (magnitude_of(solved) >= DECODER_WORD_LIMIT)
		return DP_ERROR_OVERFLOW;
	for (int j = 0; j < d; j++)
	{
		next[j] = mul_shift_round(decoder[j], (uint64_t) params->theta_num[j], DP_BLT_PARAM_BITS) + solved;
		if (magnitude_of(next[j]) >= DECODER_WORD_LIMIT)
			return DP_ERROR_OVERFLOW;
	}
	release = decoder[d] + solved;
	if (magnitude_of(release) >= DECODER_WORD_LIMIT)
		return DP_ERROR_OVERFLOW;
	for (int j = 0; j < d; j++)
		decoder[j] = next[j];
	decoder[d] = release;
	return DP_OK;
}

dp_int128
dp_blt_release_rounded(const dp_blt_params *params, const dp_int128 *decoder, int fraction_bits)
{
	return shift_round(decoder[params->buffers], fraction_bits + decoder_guard_bits(params));
}

long double
dp_blt_release_value(const dp_blt_params *params, const dp_int128 *decoder, int fraction_bits)
{
	return ldexpl((long double) decoder[params->buffers],
				  -(fraction_bits + decoder_guard_bits(params)));
}

/* ---------------------------------------------------------------------
 * Bounds
 * --------------------------------------------------------------------- */

/* sum_j (1/2 + omega_j m_j / 2): one buffer-and-product rounding budget */
static long double
buffer_rounding_sum(const dp_blt_params *params, int64_t horizon)
{
	long double total = 0;

	for (int j = 0; j < params->buffers; j++)
		total += 0.5L + param_value(params->omega_num[j]) *
			memory_length(params->theta_num[j], horizon) / 2;
	return total * UPWARD_MARGIN;
}

double
dp_blt_encoder_rounding_bound(const dp_blt_params *params, int64_t horizon)
{
	long double r = 0.5L + ldexpl(buffer_rounding_sum(params, horizon), -params->guard_bits);

	return (double) (r * UPWARD_MARGIN);
}

long double
dp_blt_encoder_buffer_bound(const dp_blt_params *params, int64_t horizon)
{
	long double largest = 0;

	for (int j = 0; j < params->buffers; j++)
	{
		long double m = memory_length(params->theta_num[j], horizon);
		long double bound = ldexpl(m, DP_BLT_INPUT_BITS + params->guard_bits) + m / 2;

		if (bound > largest)
			largest = bound;
	}
	return largest * UPWARD_MARGIN;
}

/*
 * sum_{n<count} q^n for q = 1 - complement in (-1, 1), accurate to a few
 * ulps: expm1 keeps 1 - q^count accurate when q is close to 1.
 */
static long double
geometric_sum(long double q, long double complement, long double count)
{
	if (count <= 0)
		return 0;
	if (q > 0)
		return -expm1l(count * log1pl(-complement)) / complement;
	return (1 - powl(q, count)) / complement;
}

/*
 * sum_{n<count} (count - n) q^n = sum_{t=1..count} sum_{n<t} q^n.  The
 * closed form (count - q G) / (1 - q) cancels when count (1 - q) is small;
 * there the series sum_m (-(1-q))^m binom(count + 1, m + 2) (from expanding
 * (1 - (1-q))^n) converges with ratio below count (1-q) / (m + 3).
 */
static long double
weighted_geometric_sum(long double q, long double complement, long double count)
{
	if (count <= 0)
		return 0;
	if (q > 0 && count * complement < 0.25L)
	{
		long double term = (count + 1) * count / 2;	/* binom(count+1, 2) */
		long double total = term;

		for (int m = 1; m < 60; m++)
		{
			/* binom(count+1, m+2) = binom(count+1, m+1) (count - m) / (m + 2) */
			term *= -complement * (count - m) / (m + 2);
			total += term;
			if (fabsl(term) <= fabsl(total) * LDBL_EPSILON)
				break;
		}
		return total;
	}
	return (count - q * geometric_sum(q, complement, count)) / complement;
}

long double
dp_blt_column_norm_squared(const dp_blt_params *params, int64_t horizon)
{
	long double total = 0;

	if (horizon <= 1)
		return 1;
	for (int j = 0; j < params->buffers; j++)
		for (int k = 0; k < params->buffers; k++)
		{
			/* 1 - theta_j theta_k exactly, as an integer over 2^124 */
			dp_uint128 product = (dp_uint128) params->theta_num[j] * (dp_uint128) params->theta_num[k];
			dp_uint128 one = ((dp_uint128) 1) << (2 * DP_BLT_PARAM_BITS);
			long double complement = ldexpl((long double) (one - product), -2 * DP_BLT_PARAM_BITS);
			long double q = 1 - complement;

			total += param_value(params->omega_num[j]) * param_value(params->omega_num[k]) *
				geometric_sum(q, complement, (long double) (horizon - 1));
		}
	return (1 + total * UPWARD_MARGIN) * UPWARD_MARGIN;
}

double
dp_blt_sensitivity_bound(const dp_blt_params *params, int64_t horizon, int fraction_bits,
						 int64_t max_per_step)
{
	long double linear = ldexpl((long double) max_per_step, fraction_bits) *
		sqrtl(dp_blt_column_norm_squared(params, horizon)) * UPWARD_MARGIN;
	long double rounding = 2 * (long double) dp_blt_encoder_rounding_bound(params, horizon) *
		sqrtl((long double) horizon) * UPWARD_MARGIN;

	return (double) ((linear + rounding) * UPWARD_MARGIN);
}

/* ---------------------------------------------------------------------
 * The spectrum of B = A C^-1: H_n = K + sum_k a_k phi_k^n
 * --------------------------------------------------------------------- */

typedef struct blt_spectrum
{
	int			count;
	long double limit;			/* K = 1 / C(1) */
	long double root[DP_BLT_MAX_BUFFERS];	/* phi_k */
	long double root_complement[DP_BLT_MAX_BUFFERS];	/* 1 - phi_k */
	long double weight[DP_BLT_MAX_BUFFERS]; /* a_k */
} blt_spectrum;

/*
 * g(anchor + offset) where distance[j] = anchor - theta_j exactly; g
 * decreases in its argument on every interval between poles.
 */
static long double
secular(const dp_blt_params *params, const long double *distance, long double offset)
{
	long double total = 1;

	for (int j = 0; j < params->buffers; j++)
		total += param_value(params->omega_num[j]) / (distance[j] + offset);
	return total;
}

/* the offset in (low, high) where g(anchor + offset) changes sign */
static long double
bisect_root(const dp_blt_params *params, const long double *distance, long double low,
			long double high, int increasing)
{
	for (int iteration = 0; iteration < 200; iteration++)
	{
		long double middle = low + (high - low) / 2;
		long double value;

		if (middle <= low || middle >= high)
			break;
		value = secular(params, distance, middle);
		if ((value > 0) == increasing)
			high = middle;
		else
			low = middle;
	}
	return low + (high - low) / 2;
}

static void
compute_spectrum(const dp_blt_params *params, blt_spectrum *spectrum)
{
	int			d = params->buffers;
	int			order[DP_BLT_MAX_BUFFERS];
	long double distance[DP_BLT_MAX_BUFFERS];
	long double reach = 1;

	/* the buffers by decreasing theta (insertion sort of at most 5) */
	for (int j = 0; j < d; j++)
	{
		int			position = j;

		while (position > 0 && params->theta_num[order[position - 1]] < params->theta_num[j])
		{
			order[position] = order[position - 1];
			position--;
		}
		order[position] = j;
	}

	spectrum->count = d;
	for (int i = 0; i < d; i++)
	{
		/* anchored at the pole below the root, or at theta_min for the last */
		int			anchor = order[i + 1 < d ? i + 1 : d - 1];
		long double offset;
		long double derivative = 0;

		for (int j = 0; j < d; j++)
			distance[j] = ldexpl((long double) (params->theta_num[anchor] - params->theta_num[j]),
								 -DP_BLT_PARAM_BITS);
		if (i + 1 < d)
		{
			/* in (theta_{i+1}, theta_i): g falls from +inf to -inf */
			long double gap = ldexpl((long double) (params->theta_num[order[i]] - params->theta_num[anchor]),
									 -DP_BLT_PARAM_BITS);

			offset = bisect_root(params, distance, 0, gap, 0);
			spectrum->root[i] = param_value(params->theta_num[anchor]) + offset;
			spectrum->root_complement[i] = theta_complement(params->theta_num[anchor]) - offset;
		}
		else
		{
			/*
			 * in (-1, theta_min): offset in (-(1 + theta_min), 0), where g
			 * falls from g(-1) > 0 (dp_blt_params_valid) to -inf
			 */
			long double span = 1 + param_value(params->theta_num[anchor]);

			offset = bisect_root(params, distance, -span, 0, 0);
			spectrum->root[i] = param_value(params->theta_num[anchor]) + offset;
			spectrum->root_complement[i] = theta_complement(params->theta_num[anchor]) - offset;
		}
		for (int j = 0; j < d; j++)
		{
			long double gap = spectrum->root[i] - param_value(params->theta_num[j]);

			derivative += param_value(params->omega_num[j]) / (gap * gap);
		}
		spectrum->weight[i] = 1 / (spectrum->root_complement[i] * derivative);
	}
	for (int j = 0; j < d; j++)
		reach += param_value(params->omega_num[j]) / theta_complement(params->theta_num[j]);
	spectrum->limit = 1 / reach;
}

/* sum_{n<t} H_n^2 */
static long double
variance_sum(const blt_spectrum *spectrum, long double t)
{
	long double K = spectrum->limit;
	long double total = K * K * t;

	for (int k = 0; k < spectrum->count; k++)
	{
		total += 2 * K * spectrum->weight[k] *
			geometric_sum(spectrum->root[k], spectrum->root_complement[k], t);
		for (int l = 0; l < spectrum->count; l++)
		{
			long double q = spectrum->root[k] * spectrum->root[l];
			long double complement = spectrum->root_complement[k] +
				spectrum->root[k] * spectrum->root_complement[l];

			total += spectrum->weight[k] * spectrum->weight[l] * geometric_sum(q, complement, t);
		}
	}
	return total;
}

/* sum_{t=1..T} sum_{n<t} H_n^2 */
static long double
cumulative_variance_sum(const blt_spectrum *spectrum, long double T)
{
	long double K = spectrum->limit;
	long double total = K * K * T * (T + 1) / 2;

	for (int k = 0; k < spectrum->count; k++)
	{
		total += 2 * K * spectrum->weight[k] *
			weighted_geometric_sum(spectrum->root[k], spectrum->root_complement[k], T);
		for (int l = 0; l < spectrum->count; l++)
		{
			long double q = spectrum->root[k] * spectrum->root[l];
			long double complement = spectrum->root_complement[k] +
				spectrum->root[k] * spectrum->root_complement[l];

			total += spectrum->weight[k] * spectrum->weight[l] *
				weighted_geometric_sum(q, complement, T);
		}
	}
	return total;
}

double
dp_blt_variance_at(const dp_blt_params *params, int64_t t)
{
	blt_spectrum spectrum;

	compute_spectrum(params, &spectrum);
	return (double) variance_sum(&spectrum, (long double) t);
}

double
dp_blt_mean_variance(const dp_blt_params *params, int64_t horizon)
{
	blt_spectrum spectrum;

	if (horizon < 1)
		return 0;
	compute_spectrum(params, &spectrum);
	return (double) (cumulative_variance_sum(&spectrum, (long double) horizon) / (long double) horizon);
}

double
dp_blt_abs_release_weight(const dp_blt_params *params, int64_t t)
{
	blt_spectrum spectrum;
	long double total;

	compute_spectrum(params, &spectrum);
	total = fabsl(spectrum.limit) * (long double) t;
	for (int k = 0; k < spectrum.count; k++)
	{
		long double size = fabsl(spectrum.root[k]);

		total += fabsl(spectrum.weight[k]) * geometric_sum(size, 1 - size, (long double) t);
	}
	/* a generous margin for the computed roots: this bounds a bias, not privacy */
	return (double) (total * 1.01L);
}

double
dp_blt_decoder_bias_bound(const dp_blt_params *params, int64_t t, int fraction_bits)
{
	long double per_step = buffer_rounding_sum(params, t);

	return (double) ldexpl(per_step * (long double) dp_blt_abs_release_weight(params, t),
						   -(fraction_bits + decoder_guard_bits(params)));
}

/* ---------------------------------------------------------------------
 * The counter: a BLT factorization under rho-zCDP (kind "blt")
 *
 * Nodes are the state words of dp_blt_state_words: the encoder buffers
 * (raw data, so the state is sealed and the mechanism is not pan-private),
 * the decoder buffers and the running release.  Each step encodes the
 * value, adds one exact discrete Gaussian draw in units of 2^-F and
 * decodes; the release is the decoder's running value rounded to an
 * integer.  The fraction bits F are the most that keep the squared
 * sensitivity bound within the Gaussian sampler's 2^56, so they shrink as
 * the horizon grows and the encoder's rounding (counted in the bound)
 * weighs more: horizons are limited to 2^40, where it adds about 1% to the
 * sensitivity.
 * --------------------------------------------------------------------- */

#include "dp_counter.h"

#define BLT_HORIZON_MAX (((int64_t) 1) << 40)
#define BLT_SENSITIVITY_SQUARED_MAX (((uint64_t) 1) << 56)

/* F for this mechanism, and the squared sensitivity bound at F (rounded up) */
static int
blt_fraction_bits(const dp_mechanism *mechanism, const dp_blt_params *params,
				  uint64_t *sensitivity_squared)
{
	int64_t		unit = (int64_t) dp_mechanism_unit_bound(mechanism);
	int			bits = dp_blt_fraction_bits(unit);

	/*
	 * A step's value (at most max_per_step) must fit the encoder's input
	 * range too: at person level the unit can be below max_per_step, and an
	 * encoder refusing a large value would fail on private data.
	 */
	if (dp_blt_fraction_bits(mechanism->max_per_step) < bits)
		bits = dp_blt_fraction_bits(mechanism->max_per_step);

	for (; bits >= 0; bits--)
	{
		double		bound = dp_blt_sensitivity_bound(params, mechanism->horizon, bits, unit);
		long double squared = ceill((long double) bound * (long double) bound) + 1.0L;

		if (isfinite(bound) && squared <= (long double) BLT_SENSITIVITY_SQUARED_MAX)
		{
			*sensitivity_squared = (uint64_t) squared;
			return bits;
		}
	}
	*sensitivity_squared = 0;
	return -1;
}

static dp_blt_params
blt_params_of(const dp_mechanism *mechanism)
{
	dp_blt_params params;

	if (dp_blt_design(mechanism->horizon, &params) != DP_OK)
		memset(&params, 0, sizeof(params));
	return params;
}

static dp_status
blt_validate(const dp_mechanism *mechanism, const char **field)
{
	dp_blt_params params;
	uint64_t	squared;

	if (!(mechanism->flags & DP_FLAG_ZCDP))
	{
		*field = "rho_required";
		return DP_ERROR_OPTION;
	}
	if (mechanism->horizon > BLT_HORIZON_MAX ||
		dp_blt_design(mechanism->horizon, &params) != DP_OK ||
		dp_blt_params_valid(&params, mechanism->horizon) != DP_OK)
	{
		*field = "horizon";
		return DP_ERROR_HORIZON;
	}
	if (dp_mechanism_unit_bound(mechanism) > (uint64_t) DP_BLT_MAX_PER_STEP_LIMIT ||
		mechanism->max_per_step > DP_BLT_MAX_PER_STEP_LIMIT ||
		blt_fraction_bits(mechanism, &params, &squared) < 0)
	{
		*field = (mechanism->flags & DP_FLAG_PERSON) ? "contributions" : "max_per_step";
		return DP_ERROR_SENSITIVITY;
	}
	return DP_OK;
}

static int
blt_node_count(const dp_mechanism *mechanism)
{
	dp_blt_params params = blt_params_of(mechanism);

	return dp_blt_state_words(&params);
}

/* one class: the encoded noise, with the sensitivity bound of dp_blt_sensitivity_bound */
static bool
blt_noise_class(const dp_mechanism *mechanism, int index, dp_noise_class *out)
{
	dp_blt_params params = blt_params_of(mechanism);
	uint64_t	squared;

	if (index != 0)
		return false;
	(void) blt_fraction_bits(mechanism, &params, &squared);
	out->l1_units = 1;			/* unused: the class is Gaussian only */
	out->l2_squared_units = squared;
	out->share_denominator = 1;
	out->l2_absolute = true;
	out->budget_weight = 1;
	return true;
}

/* F and the parameters, derived once per counter (start, resume) */
typedef struct blt_derived
{
	int64_t		fraction_bits;
	dp_blt_params params;
} blt_derived;

_Static_assert(sizeof(blt_derived) <= sizeof(((dp_counter *) 0)->derived),
				 "blt_derived fits dp_counter.derived");

static blt_derived *
derived_of(dp_counter *counter)
{
	return (blt_derived *) counter->derived;
}

static const blt_derived *
derived_of_const(const dp_counter *counter)
{
	return (const blt_derived *) counter->derived;
}

static void
blt_derive(dp_counter *counter)
{
	blt_derived *derived = derived_of(counter);
	uint64_t	squared;

	derived->params = blt_params_of(&counter->mechanism);
	derived->fraction_bits = blt_fraction_bits(&counter->mechanism, &derived->params, &squared);
}

static void
blt_start(dp_counter *counter, dp_random *rng)
{
	/* every buffer starts at zero: nodes are zeroed by the counter */
}

static void
blt_push(dp_counter *counter, int64_t value, dp_random *rng)
{
	blt_derived *derived = derived_of(counter);
	int			buffers = derived->params.buffers;
	dp_int128	encoded;
	dp_int128	noise;

	counter->steps++;
	if (dp_blt_encode_step(&derived->params, counter->nodes, value, (int) derived->fraction_bits,
						   &encoded) != DP_OK)
	{
		counter->overflow = true;
		return;
	}
	noise = dp_counter_noise(counter, rng, &counter->scale, 0, DP_NOISE_OPEN, 0);
	if (dp_blt_decode_step(&derived->params, counter->nodes + buffers,
						   dp_counter_add(counter, encoded, noise)) != DP_OK)
	{
		counter->overflow = true;
		return;
	}
	counter->release = dp_blt_release_rounded(&derived->params, counter->nodes + buffers,
											  (int) derived->fraction_bits);
}

static void
blt_resume(dp_counter *counter)
{
	blt_derived *derived = derived_of(counter);

	counter->running_total = 0;
	counter->release = dp_blt_release_rounded(&derived->params, counter->nodes + derived->params.buffers,
											  (int) derived->fraction_bits);
}

/*
 * The release's noise is sum_u H_(t-u) z_u / 2^F: one Gaussian group whose
 * weight is the root of sum_n H_n^2 over 2^F has the same variance and the
 * same sub-Gaussian tail bound as the weighted sum.
 */
static int
blt_noise_groups(const dp_counter *counter, int64_t steps, dp_noise_group *groups)
{
	const blt_derived *derived = derived_of_const(counter);

	groups[0].scale = counter->scale;
	groups[0].terms = steps > 0 ? 1 : 0;
	groups[0].weight = ldexp(sqrt(dp_blt_variance_at(&derived->params, steps)),
							 -(int) derived->fraction_bits);
	return 1;
}

/* the rounding of the release to an integer, and the decoder's fixed point */
static double
blt_release_slack(const dp_counter *counter, int64_t steps)
{
	const blt_derived *derived = derived_of_const(counter);

	return 0.5 + dp_blt_decoder_bias_bound(&derived->params, steps, (int) derived->fraction_bits);
}

static const dp_kind_refusal blt_refusals[] = {
	{DP_ERROR_HORIZON, "horizon", "the {kind} mechanism's horizon must be between 1 and {horizon_max}",
		"horizon was {horizon}.",
	"Beyond {horizon_max} steps the encoder's fixed point would cost accuracy; use binary or balanced with rho."},
	{.status = DP_OK}
};

const dp_counter_kind dp_blt_kind = {
	.name = "blt",
	.kind = DP_MECHANISM_BLT,
	.bounded = true,
	.accepted_flags = DP_FLAG_ZCDP | DP_FLAG_CONSISTENT | DP_FLAG_PERSON | DP_FLAG_PER_OBSERVATION,
	.validate = blt_validate,
	.node_count = blt_node_count,
	.noise_class = blt_noise_class,
	.start = blt_start,
	.push = blt_push,
	.persist = NULL,
	.resume = blt_resume,
	.noise_groups = blt_noise_groups,
	.release_slack = blt_release_slack,
	.derive = blt_derive,
	.horizon_max = BLT_HORIZON_MAX,
	.refusals = blt_refusals,
};
