/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_fit.c - which blocks fit --max-duration (run/fit.h): ranks and sample counts in, the
 * kept set and the exact total out. */
#include <stdint.h>
#include <string.h>

#include "testkit.h"
#include "fit.h"
#include "script.h"

#define SP 10   /* a sentence pause, in samples */
#define PP 30   /* a paragraph pause */

/* "And N more ...": 7 samples, whatever N. */
static uint64_t more7(void *context, size_t list, size_t n)
{
    (void)list, (void)n;
    int *asked = context;
    if (asked)
        (*asked)++;
    return 7;
}

static fit_token speech(size_t choice, uint64_t frames, int starts)
{
    return (fit_token){ FIT_SPEECH, choice, frames, starts, SP };
}

static const fit_token paragraph_break = { FIT_BREAK, 0, PP, 0, 0 };
static const fit_token chapter = { FIT_CHAPTER, 0, 0, 0, 0 };

typedef struct steps {
    fit_step s[64];
    size_t n;
} steps;

static void record(void *context, const fit_step *step)
{
    steps *st = context;
    if (st->n < 64)
        st->s[st->n++] = *step;
}

/* Two paragraphs of one block each, ranks as given: the one ranked first is kept. */
static void test_rank_first(void)
{
    fit_choice choices[] = { { RE_RANK_CHORE, 0, 0, 0, 0, 1 }, { RE_RANK_SECURITY, 0, 0, 0, 0, 1 } };
    fit_token tokens[] = { speech(0, 100, 1), paragraph_break, speech(1, 100, 1) };
    fit_problem pb = { tokens, 3, choices, 2, more7, NULL };
    unsigned char keep[2];
    re_status status;
    CHECK_INT(re_fit_choose(&pb, 230, keep, &status), 230);   /* both fit: all kept, exactly */
    CHECK(keep[0] && keep[1]);
    CHECK_INT(re_fit_choose(&pb, 229, keep, &status), 100);
    CHECK(status == RE_OK);
    CHECK(!keep[0] && keep[1]);                             /* security before chores */
    CHECK_INT(re_fit_walk(&pb, keep, NULL, NULL), 100);        /* no break around one paragraph */
    CHECK_INT(re_fit_choose(&pb, 99, keep, &status), 0);       /* nothing fits alone */
    CHECK(!keep[0] && !keep[1]);
}

/* The same rank: the earlier release (the newer one in a changelog) first; within it, the
 * earlier place; a block too long for what is left is passed over for a shorter one. */
static void test_release_then_place(void)
{
    fit_choice choices[] = {
        { RE_RANK_FIX, 2, 0, 2, 0, 1 }, { RE_RANK_FIX, 1, 0, 1, 0, 1 }, { RE_RANK_FIX, 1, 0, 1, 0, 1 },
        { RE_RANK_FIX, 1, 0, 1, 0, 1 },
    };
    fit_token tokens[] = { speech(0, 50, 1), paragraph_break, speech(1, 60, 1), paragraph_break,
                           speech(2, 500, 1), paragraph_break, speech(3, 40, 1) };
    fit_problem pb = { tokens, 7, choices, 4, more7, NULL };
    unsigned char keep[4];
    re_status status;
    CHECK_INT(re_fit_choose(&pb, 60 + PP + 40, keep, &status), 130);
    CHECK(!keep[0] && keep[1] && !keep[2] && keep[3]);
}

/* A chapter's title and a section's heading go with something kept under them; a chapter
 * with nothing kept leaves no mark and no paragraph pause. */
static void test_headings_follow(void)
{
    /* chapter 1: title (choice 0), section heading (1), item (2); chapter 2: title (3),
     * item (4) */
    fit_choice choices[] = {
        { RE_RANK_OTHER, 1, 2, 1, 0, 1 }, { RE_RANK_OTHER, 1, 1, 2, 0, 1 }, { RE_RANK_CHORE, 1, 0, 2, 1, 1 },
        { RE_RANK_OTHER, 3, 2, 3, 0, 1 }, { RE_RANK_FEATURE, 3, 0, 3, 2, 1 },
    };
    fit_token tokens[] = {
        chapter, speech(0, 20, 1), paragraph_break, speech(1, 15, 1), paragraph_break,
        speech(2, 100, 1), paragraph_break, chapter, speech(3, 20, 1), paragraph_break,
        speech(4, 100, 1),
    };
    fit_problem pb = { tokens, 11, choices, 5, more7, NULL };
    unsigned char keep[5];
    re_status status;
    CHECK_INT(re_fit_choose(&pb, 200, keep, &status), 20 + PP + 100);
    CHECK(keep[4] && !keep[2]);
    steps st = { .n = 0 };
    CHECK_INT(re_fit_walk(&pb, keep, record, &st), 150);
    CHECK_INT(st.n, 4);   /* chapter 2's mark, its title, a paragraph pause, its item */
    CHECK(st.s[0].kind == FIT_STEP_TOKEN && st.s[0].index == 7);
    CHECK(st.s[1].index == 8 && st.s[2].index == 9 && st.s[3].index == 10);
    /* with room for both: everything, each heading with its own */
    CHECK_INT(re_fit_choose(&pb, 1000, keep, &status), 20 + PP + 15 + PP + 100 + PP + 20 + PP + 100);
}

/* A list that lost items ends with "And N more ...", counted, after a sentence pause; a list
 * that lost none, or all, says nothing. Items of one piece of speech are kept apart by a
 * sentence pause. */
static void test_and_more(void)
{
    fit_choice choices[] = {
        { RE_RANK_FIX, 0, 0, 0, 1, 1 }, { RE_RANK_FIX, 0, 0, 0, 1, 1 }, { RE_RANK_FIX, 0, 0, 0, 1, 1 },
        { RE_RANK_FIX, 0, 0, 0, 1, 1 },
    };
    fit_token tokens[] = { speech(0, 40, 1), speech(1, 40, 1), speech(2, 40, 1),
                           speech(3, 40, 1) };
    int asked = 0;
    fit_problem pb = { tokens, 4, choices, 4, more7, &asked };
    unsigned char keep[4];
    re_status status;
    CHECK_INT(re_fit_choose(&pb, 4 * 40 + 3 * SP, keep, &status), 190);   /* all: no sentence */
    CHECK_INT(asked, 0);
    CHECK_INT(re_fit_choose(&pb, 40 + SP + 40 + SP + 7, keep, &status), 107);
    CHECK(keep[0] && keep[1] && !keep[2] && !keep[3]);
    steps st = { .n = 0 };
    re_fit_walk(&pb, keep, record, &st);
    CHECK_INT(st.n, 5);
    CHECK(st.s[1].kind == FIT_STEP_SENTENCE_PAUSE && st.s[1].frames == SP);
    CHECK(st.s[3].kind == FIT_STEP_SENTENCE_PAUSE);
    CHECK(st.s[4].kind == FIT_STEP_MORE && st.s[4].count == 2 && st.s[4].index == 1);
    /* the sentence counts: one sample less and only one item fits */
    CHECK_INT(re_fit_choose(&pb, 40 + SP + 40 + SP + 6, keep, &status), 40 + SP + 7);
    CHECK(keep[0] && !keep[1] && !keep[2] && !keep[3]);
}

/* A long list is cut into paragraphs (a break inside it): "And N more ..." once, after its
 * last item, not at the break. */
static void test_and_more_once(void)
{
    fit_choice choices[] = {
        { RE_RANK_FIX, 0, 0, 0, 1, 1 }, { RE_RANK_FIX, 0, 0, 0, 1, 1 }, { RE_RANK_FIX, 0, 0, 0, 1, 1 },
    };
    fit_token tokens[] = { speech(0, 40, 1), paragraph_break, speech(1, 40, 1),
                           speech(2, 400, 1) };
    int asked = 0;
    fit_problem pb = { tokens, 4, choices, 3, more7, &asked };
    unsigned char keep[3];
    re_status status;
    CHECK_INT(re_fit_choose(&pb, 40 + PP + 40 + SP + 7, keep, &status), 40 + PP + 40 + SP + 7);
    CHECK(keep[0] && keep[1] && !keep[2]);
    steps st = { .n = 0 };
    re_fit_walk(&pb, keep, record, &st);
    size_t mores = 0;
    for (size_t k = 0; k < st.n; k++)
        mores += st.s[k].kind == FIT_STEP_MORE;
    CHECK_INT(mores, 1);
    CHECK(st.n > 0 && st.s[st.n - 1].kind == FIT_STEP_MORE && st.s[st.n - 1].count == 1);
}

/* Items that are paragraphs of their own (each a break after it): the paragraph pause after
 * the last item kept comes before "And N more ...", and the paragraph after the list gets
 * its own pause after it. */
static void test_and_more_after_paragraphs(void)
{
    fit_choice choices[] = {
        { RE_RANK_FIX, 0, 0, 0, 1, 1 }, { RE_RANK_FIX, 0, 0, 0, 1, 1 }, { RE_RANK_FIX, 0, 0, 0, 1, 1 },
        { RE_RANK_FIX, 0, 0, 0, 0, 1 },
    };
    fit_token tokens[] = { speech(0, 40, 1), paragraph_break, speech(1, 40, 1), paragraph_break,
                           speech(2, 400, 1), paragraph_break, speech(3, 20, 1) };
    fit_problem pb = { tokens, 7, choices, 4, more7, NULL };
    unsigned char keep[4];
    re_status status;
    uint64_t want = 40 + PP + 40 + PP + 7 + PP + 20;
    CHECK_INT(re_fit_choose(&pb, want, keep, &status), want);
    CHECK(keep[0] && keep[1] && !keep[2] && keep[3]);
    steps st = { .n = 0 };
    re_fit_walk(&pb, keep, record, &st);
    size_t more = st.n;
    for (size_t k = 0; k < st.n; k++)
        if (st.s[k].kind == FIT_STEP_MORE)
            more = k;
    CHECK(more > 0 && more + 2 < st.n);
    if (more > 0 && more + 2 < st.n) {
        CHECK(st.s[more - 1].kind == FIT_STEP_TOKEN && st.s[more - 1].frames == PP);
        CHECK(st.s[more + 1].kind == FIT_STEP_TOKEN && st.s[more + 1].frames == PP);
    }
}

/* A run of items said together (the briefing's dependency updates) counts as its items: left
 * out, "And N more" names them all. */
static void test_run_counts_its_items(void)
{
    fit_choice choices[] = { { RE_RANK_FIX, 0, 0, 0, 1, 1 }, { RE_RANK_CHORE, 0, 0, 0, 1, 4 } };
    fit_token tokens[] = { speech(0, 40, 1), paragraph_break, speech(1, 200, 1) };
    fit_problem pb = { tokens, 3, choices, 2, more7, NULL };
    unsigned char keep[2];
    re_status status;
    CHECK_INT(re_fit_choose(&pb, 40 + PP + 7, keep, &status), 40 + PP + 7);
    CHECK(keep[0] && !keep[1]);
    steps st = { .n = 0 };
    re_fit_walk(&pb, keep, record, &st);
    CHECK(st.n > 0 && st.s[st.n - 1].kind == FIT_STEP_MORE && st.s[st.n - 1].count == 4);
}

/* A continuation (a block's speech after a [pause]) goes with its block, with the pause. */
static void test_continuation(void)
{
    fit_choice choices[] = { { RE_RANK_FIX, 0, 0, 0, 0, 1 }, { RE_RANK_OTHER, 0, 0, 0, 0, 1 } };
    fit_token tokens[] = { speech(0, 30, 1), { FIT_PAUSE, 0, 25, 0, 0 }, speech(0, 30, 0),
                           paragraph_break, speech(1, 10, 1) };
    fit_problem pb = { tokens, 5, choices, 2, more7, NULL };
    unsigned char keep[2];
    re_status status;
    CHECK_INT(re_fit_choose(&pb, 100, keep, &status), 85);   /* no sentence pause after a pause */
    CHECK(keep[0] && !keep[1]);
}

int main(void)
{
    test_rank_first();
    test_release_then_place();
    test_headings_follow();
    test_and_more();
    test_and_more_once();
    test_and_more_after_paragraphs();
    test_run_counts_its_items();
    test_continuation();
    return check_finish("test_fit");
}
