/* SPDX-License-Identifier: GPL-3.0-or-later */
/* judge.c - a claim against a measurement, at the precision the claim was written with, and
 * the measured value written in the claim's own notation (see check.h, re_claim_judge). */
#include "check_internal.h"

#include <stdio.h>

static uint64_t pow10_u64(unsigned k)
{
    uint64_t p = 1;
    while (k-- > 0)
        p *= 10;
    return p;
}

/* The measured length in units of 10^-digits s: whole seconds half up (the project's rule),
 * milliseconds and finer rounded down (the project's rule), tenths and hundredths nearest. */
static uint64_t measured_scaled(const re_mp3_measurement *m, unsigned digits)
{
    if (digits == 0)
        return re_samples_to_seconds(m->samples, m->sample_rate);
    if (digits >= 3)
        return re_samples_to_ms(m->samples, m->sample_rate) * pow10_u64(digits - 3);
    unsigned __int128 num = (unsigned __int128)m->samples * pow10_u64(digits) * 2 + m->sample_rate;
    return (uint64_t)(num / (2u * (unsigned __int128)m->sample_rate));
}

/* "PT2M53S", "PT173.5S", "02:53", "0:02:53.50", "173" in the claim's own style. */
static void format_duration(const re_claim *c, const re_mp3_measurement *m, char *out, size_t size)
{
    unsigned digits = c->style.frac_digits > 9 ? 9 : c->style.frac_digits;
    uint64_t v = measured_scaled(m, digits), p = pow10_u64(digits);
    unsigned long long whole = v / p, frac = v % p;
    char frac_text[32] = "";
    if (c->style.frac_digits > 0)
        snprintf(frac_text, sizeof frac_text, "%c%0*llu%.*s", c->style.frac_sep, (int)digits, frac,
                 (int)(c->style.frac_digits - digits), "000000000");
    unsigned long long h = whole / 3600, mi = whole / 60 % 60, s = whole % 60;
    int w = c->style.first_width > 0 ? (int)c->style.first_width : 1;
    if (c->notation == RE_NOTATION_ISO && c->style.seconds_only)
        snprintf(out, size, "PT%llu%sS", whole, frac_text);
    else if (c->notation == RE_NOTATION_ISO && h > 0)
        snprintf(out, size, "PT%lluH%lluM%llu%sS", h, mi, s, frac_text);
    else if (c->notation == RE_NOTATION_ISO && mi > 0)
        snprintf(out, size, "PT%lluM%llu%sS", mi, s, frac_text);
    else if (c->notation == RE_NOTATION_ISO)
        snprintf(out, size, "PT%llu%sS", s, frac_text);
    else if (c->style.clock_fields >= 3)
        snprintf(out, size, "%0*llu:%02llu:%02llu%s", w, h, mi, s, frac_text);
    else if (c->style.clock_fields == 2)
        snprintf(out, size, "%0*llu:%02llu%s", w, whole / 60, s, frac_text);
    else
        snprintf(out, size, "%0*llu%s", w, whole, frac_text);
}

static void format_measured(re_claim *c, const re_mp3_measurement *m)
{
    unsigned long long v = 0;
    switch (c->kind) {
    case RE_CLAIM_DURATION:
        if (c->readable) {
            format_duration(c, m, c->measured, sizeof c->measured);
        } else {
            char iso[RE_DURATION_ISO_MAX];
            re_duration_format_iso(re_samples_to_seconds(m->samples, m->sample_rate), iso);
            snprintf(c->measured, sizeof c->measured, "%s", iso);
        }
        return;
    case RE_CLAIM_MS: v = re_samples_to_ms(m->samples, m->sample_rate); break;
    case RE_CLAIM_SAMPLES: v = m->samples; break;
    case RE_CLAIM_SAMPLE_RATE: v = m->sample_rate; break;
    case RE_CLAIM_BYTES: v = m->bytes; break;
    }
    snprintf(c->measured, sizeof c->measured, "%llu", v);
}

/* |claim - measured| scaled by the rate: claim_us * rate - samples * 10^6. */
static unsigned __int128 abs_diff_scaled(uint64_t claim_us, const re_mp3_measurement *m)
{
    unsigned __int128 a = (unsigned __int128)claim_us * m->sample_rate;
    unsigned __int128 b = (unsigned __int128)m->samples * US_PER_S;
    return a > b ? a - b : b - a;
}

static int holds_exactly(const re_claim *c, const re_mp3_measurement *m)
{
    uint64_t unit = c->value.unit_us;
    switch (c->kind) {
    case RE_CLAIM_DURATION:
        if (unit == US_PER_S)
            return c->value.us == re_samples_to_seconds(m->samples, m->sample_rate) * US_PER_S;
        if (unit <= 1000)
            return abs_diff_scaled(c->value.us, m) <= (unsigned __int128)1000 * m->sample_rate;
        return 2 * abs_diff_scaled(c->value.us, m) <= (unsigned __int128)unit * m->sample_rate;
    case RE_CLAIM_MS:
        return abs_diff_scaled(c->value.us, m) <= (unsigned __int128)1000 * m->sample_rate;
    case RE_CLAIM_SAMPLES: return c->count == m->samples;
    case RE_CLAIM_SAMPLE_RATE: return c->count == m->sample_rate;
    case RE_CLAIM_BYTES: return c->count == m->bytes;
    }
    return 0;
}

static int holds_within(const re_claim *c, const re_mp3_measurement *m, uint64_t tolerance_us)
{
    unsigned __int128 limit = (unsigned __int128)tolerance_us * m->sample_rate;
    switch (c->kind) {
    case RE_CLAIM_DURATION:
    case RE_CLAIM_MS:
        return abs_diff_scaled(c->value.us, m) <= limit;
    case RE_CLAIM_SAMPLES: {
        uint64_t d = c->count > m->samples ? c->count - m->samples : m->samples - c->count;
        return (unsigned __int128)d * US_PER_S <= limit;
    }
    default:
        return 0;
    }
}

void re_claim_judge(re_claim *claim, const re_mp3_measurement *m, uint64_t tolerance_us)
{
    if (!claim || !m)
        return;
    claim->ok = 0;
    claim->within_tolerance = 0;
    format_measured(claim, m);
    if (!claim->readable || m->sample_rate == 0)
        return;
    if (holds_exactly(claim, m)) {
        claim->ok = 1;
    } else if (tolerance_us > 0 && holds_within(claim, m, tolerance_us)) {
        claim->ok = 1;
        claim->within_tolerance = 1;
    }
}
