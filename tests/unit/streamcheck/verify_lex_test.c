// SPDX-License-Identifier: MIT
/* ksnap-verify's lexer: one line at a time, plain and lossy. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "verify_build.h"
#include "verify_lex.h"

static const char *const kinds[] = {
	"EMPTY", "FOREIGN", "META", "START", "HEADER", "ROW", "STATS",
	"ADLER", "UNKNOWN",
};
static const char *const states[] = { "OK", "CUT", "DAMAGED" };

/* Lex text (no "\n" in it) as one line ended by a newline or not. */
static struct ksv_line lex(const char *text, bool nl, bool lossy)
{
	struct ksv_line l;

	ksv_lex_line(&l, text, strlen(text), nl, 7, lossy);
	return l;
}

static void expect(const struct ksv_line *l, enum ksv_kind kind,
		   enum ksv_state state, const char *why)
{
	if (l->kind != kind || l->state != state)
		fail_msg("expected a %s line, %s; got a %s line, %s (%s)",
			 kinds[kind], states[state], kinds[l->kind],
			 states[l->state], l->why ? l->why : "no reason");
	if (why && (!l->why || strcmp(l->why, why)))
		fail_msg("expected the reason \"%s\", got \"%s\"", why,
			 l->why ? l->why : "(none)");
	if (!why && l->why)
		fail_msg("expected no reason, got \"%s\"", l->why);
}

static void expect_body(const struct ksv_line *l, const char *body)
{
	if (l->body_len != strlen(body) || memcmp(l->body, body, l->body_len))
		fail_msg("expected the body \"%s\", got \"%.*s\"", body,
			 (int)l->body_len, l->body);
}

/* "GVISOR_METRICS<TAB>" + content + "<TAB>0x<its adler32>". */
static void lossy_line(char *out, size_t size, const char *content)
{
	size_t n = strlen("GVISOR_METRICS\t");

	snprintf(out, size, "GVISOR_METRICS\t");
	sb_lossy_text(out + n, size - n, content);
}

static void lossy_row_with_matching_checksum_is_intact(void **state)
{
	char line[512];
	struct ksv_line l;

	lossy_line(line, sizeof(line), "1000\t5\t6");
	l = lex(line, true, true);
	expect(&l, KSV_K_ROW, KSV_S_OK, NULL);
	expect_body(&l, "1000\t5\t6");
	assert_false(l.prefix_bad);
	assert_false(l.suffix_bad);
	assert_int_equal(l.no, 7);
}

static void lossy_row_with_wrong_checksum_is_damaged(void **state)
{
	char line[512];
	struct ksv_line l;

	lossy_line(line, sizeof(line), "1000\t5\t6");
	line[strlen("GVISOR_METRICS\t1000\t")] = '9';	/* a value flipped */
	l = lex(line, true, true);
	expect(&l, KSV_K_ROW, KSV_S_DAMAGED, "checksum mismatch");
	expect_body(&l, "1000\t9\t6");
	assert_true(l.has_sums);
	if (l.sum_got != ksv_line_sum("1000\t9\t6", 8))
		fail_msg("expected the computed sum of the line as read, "
			 "got 0x%x", l.sum_got);
}

static void lossy_line_without_checksum_is_cut(void **state)
{
	struct ksv_line l = lex("GVISOR_METRICS\t1000\t5\t6", true, true);

	expect(&l, KSV_K_ROW, KSV_S_CUT, "no checksum at the end of the line");
}

static void lossy_line_cut_at_input_end_says_so(void **state)
{
	struct ksv_line l = lex("GVISOR_METRICS\t1000\t5", false, true);

	expect(&l, KSV_K_ROW, KSV_S_CUT, "no checksum at the end of the line "
	       "(the input ends inside it)");
}

static void lossy_line_cut_inside_checksum_digits_is_cut(void **state)
{
	char line[512];
	struct ksv_line l;

	lossy_line(line, sizeof(line), "1000\t5\t6");
	line[strlen(line) - 2] = '\0';		/* two digits lost */
	l = lex(line, true, true);
	expect(&l, KSV_K_ROW, KSV_S_CUT, "cut inside its checksum");
}

static void prefix_with_one_byte_altered_is_kept_damage(void **state)
{
	char line[512];
	struct ksv_line l;

	lossy_line(line, sizeof(line), "1000\t5\t6");
	line[9] = 'X';				/* GVISOR_ME_X_RICS */
	l = lex(line, true, true);
	expect(&l, KSV_K_ROW, KSV_S_OK, NULL);
	if (!l.prefix_bad)
		fail_msg("expected the prefix noted as altered, it was not");
	expect_body(&l, "1000\t5\t6");
}

static void prefix_and_content_altered_is_damaged(void **state)
{
	char line[512];
	struct ksv_line l;

	lossy_line(line, sizeof(line), "1000\t5\t6");
	line[0] = 'g';
	line[strlen("GVISOR_METRICS\t1000\t")] = '8';
	l = lex(line, true, true);
	expect(&l, KSV_K_ROW, KSV_S_DAMAGED, "checksum mismatch");
	assert_true(l.prefix_bad);
}

static void prefix_with_two_bytes_altered_is_foreign(void **state)
{
	char line[512];
	struct ksv_line l;

	lossy_line(line, sizeof(line), "1000\t5\t6");
	line[0] = 'g';
	line[1] = 'v';
	l = lex(line, true, true);
	expect(&l, KSV_K_FOREIGN, KSV_S_OK, NULL);
}

static void almost_prefix_without_checksum_is_foreign(void **state)
{
	struct ksv_line l = lex("GVISOR_METRIC almost", true, true);

	expect(&l, KSV_K_FOREIGN, KSV_S_OK, NULL);
}

static void checksum_tab0x_altered_with_matching_digits_is_kept(void **state)
{
	char line[512];
	struct ksv_line l;

	lossy_line(line, sizeof(line), "1000\t5\t6");
	*strrchr(line, 'x') = 'y';		/* "<TAB>0y..." */
	l = lex(line, true, true);
	expect(&l, KSV_K_ROW, KSV_S_OK, NULL);
	if (!l.suffix_bad)
		fail_msg("expected the \"<TAB>0x\" noted as altered, it was "
			 "not");
	expect_body(&l, "1000\t5\t6");
}

static void checksum_digit_replaced_is_damaged(void **state)
{
	char line[512];
	struct ksv_line l;

	lossy_line(line, sizeof(line), "1000\t5\t6");
	strrchr(line, 'x')[2] = 'z';		/* second digit */
	l = lex(line, true, true);
	expect(&l, KSV_K_ROW, KSV_S_DAMAGED, "a checksum digit altered");
	expect_body(&l, "1000\t5\t6");
}

static void adler32_line_with_bad_hex_is_damaged_or_cut(void **state)
{
	struct ksv_line l = lex("GVISOR_METRICS\tADLER32\t0xzz", true, true);

	expect(&l, KSV_K_ADLER, KSV_S_DAMAGED, "no valid hexadecimal checksum");
	l = lex("GVISOR_METRICS\tADLER32\t0x", false, true);
	expect(&l, KSV_K_ADLER, KSV_S_CUT, "no valid hexadecimal checksum");
	l = lex("GVISOR_METRICS\tADLER32\t0x1a2b", true, true);
	expect(&l, KSV_K_ADLER, KSV_S_OK, NULL);
	assert_int_equal(l.sum_said, 0x1a2b);
}

static void lossy_types_are_told_by_their_start(void **state)
{
	static const struct { const char *content; enum ksv_kind kind; } t[] = {
		{ "META\tm\t{}", KSV_K_META },
		{ "START_TIME\t5", KSV_K_START },
		{ "Time (ns)\tm\tChecksum", KSV_K_HEADER },
		{ "Time (ns)x", KSV_K_UNKNOWN },
		{ "STATS\t{}", KSV_K_STATS },
		{ "12\t3", KSV_K_ROW },
		{ "hello", KSV_K_UNKNOWN },
	};
	char line[512];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ksv_line l;

		lossy_line(line, sizeof(line), t[i].content);
		l = lex(line, true, true);
		if (l.kind != t[i].kind)
			fail_msg("\"%s\": expected a %s line, got %s",
				 t[i].content, kinds[t[i].kind],
				 kinds[l.kind]);
	}
}

static void plain_row_with_a_letter_is_foreign(void **state)
{
	struct ksv_line l = lex("1000\t5x\t6", true, false);

	expect(&l, KSV_K_FOREIGN, KSV_S_OK, NULL);
	l = lex("1000\t5\t6", true, false);
	expect(&l, KSV_K_ROW, KSV_S_OK, NULL);
}

static void plain_last_line_without_newline_is_cut(void **state)
{
	struct ksv_line l = lex("STATS\t{\"a\":1", false, false);

	expect(&l, KSV_K_STATS, KSV_S_CUT, "no newline at the end of the input");
}

static void plain_adler32_line_is_foreign(void **state)
{
	struct ksv_line l = lex("ADLER32\t0x1", true, false);

	expect(&l, KSV_K_FOREIGN, KSV_S_OK, NULL);
}

static void empty_line_is_empty_in_both_variants(void **state)
{
	struct ksv_line l = lex("", true, true);

	expect(&l, KSV_K_EMPTY, KSV_S_OK, NULL);
	l = lex("", true, false);
	expect(&l, KSV_K_EMPTY, KSV_S_OK, NULL);
}

static void variant_is_the_first_stream_lines(void **state)
{
	static const char lossy[] = "log\n\nGVISOR_METRICS\tMETA\tx\n";
	static const char plain[] = "log line\nMETA\tm\t{}\n";
	static const char none[] = "hello\n1000\t5\nworld";
	bool is_lossy = true;
	size_t lines = 0;

	assert_int_equal(ksv_lex_variant(lossy, strlen(lossy), &is_lossy,
					 &lines), 0);
	if (!is_lossy)
		fail_msg("expected lossy (a prefixed line first), got plain");
	assert_int_equal(ksv_lex_variant(plain, strlen(plain), &is_lossy,
					 &lines), 0);
	if (is_lossy)
		fail_msg("expected plain (a META line first), got lossy");
	assert_int_equal(ksv_lex_variant(none, strlen(none), &is_lossy,
					 &lines), -ENOENT);
	if (lines != 3)
		fail_msg("expected 3 lines read, got %zu", lines);
}

static void cursor_numbers_lines_and_keeps_an_unended_last(void **state)
{
	static const char text[] = "a\n\nb";
	struct ksv_cursor c;
	struct ksv_line l;

	ksv_cursor_init(&c, text, strlen(text));
	assert_true(ksv_cursor_next(&c, false, &l));
	assert_int_equal(l.no, 1);
	assert_true(ksv_cursor_next(&c, false, &l));
	assert_int_equal(l.no, 2);
	assert_int_equal(l.kind, KSV_K_EMPTY);
	assert_true(ksv_cursor_next(&c, false, &l));
	assert_int_equal(l.no, 3);
	if (l.nl || l.full_len != 1 || l.full[0] != 'b')
		fail_msg("expected the last line \"b\" without newline, got "
			 "\"%.*s\"%s", (int)l.full_len, l.full,
			 l.nl ? " with one" : "");
	assert_false(ksv_cursor_next(&c, false, &l));
}

static void u64_is_strict_decimal(void **state)
{
	static const char *const bad[] = {
		"", "-1", "+1", "01", "1a", "18446744073709551616",
		"99999999999999999999",
	};
	uint64_t v = 0;
	size_t i;

	assert_true(ksv_parse_u64("18446744073709551615", 20, &v));
	assert_true(v == UINT64_MAX);
	assert_true(ksv_parse_u64("0", 1, &v));
	assert_true(v == 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (ksv_parse_u64(bad[i], strlen(bad[i]), &v))
			fail_msg("expected \"%s\" refused, got %llu", bad[i],
				 (unsigned long long)v);
}

static void hex32_is_lowercase_without_leading_zero(void **state)
{
	static const char *const bad[] = {
		"0x", "0xA", "0x01", "1x1", "0x123456789", "0xg",
	};
	uint32_t v = 0;
	size_t i;

	assert_true(ksv_parse_hex32("0x0", 3, &v));
	assert_int_equal(v, 0);
	assert_true(ksv_parse_hex32("0xffffffff", 10, &v));
	assert_true(v == 0xffffffffu);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (ksv_parse_hex32(bad[i], strlen(bad[i]), &v))
			fail_msg("expected \"%s\" refused, got 0x%x", bad[i],
				 v);
}

static void row_fields_parse_into_time_and_values(void **state)
{
	static const char row[] = "1000\t5\t18446744073709551615";
	uint64_t t = 0, v[2] = { 0, 0 };

	assert_true(ksv_lex_row(row, strlen(row), &t, v));
	if (t != 1000 || v[0] != 5 || v[1] != UINT64_MAX)
		fail_msg("expected 1000, 5, 2^64-1; got %llu, %llu, %llu",
			 (unsigned long long)t, (unsigned long long)v[0],
			 (unsigned long long)v[1]);
	assert_false(ksv_lex_row("1000\t\t5", 7, &t, NULL));
}

static void json_number_is_found_by_its_key(void **state)
{
	static const char j[] = "STATS\t{\"a_total\":1,\"total\":42}";
	uint64_t v = 0;

	assert_true(ksv_json_u64(j, strlen(j), "total", &v));
	if (v != 42)
		fail_msg("expected \"total\" 42, got %llu",
			 (unsigned long long)v);
	assert_false(ksv_json_u64(j, strlen(j), "missing", &v));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lossy_row_with_matching_checksum_is_intact),
		cmocka_unit_test(lossy_row_with_wrong_checksum_is_damaged),
		cmocka_unit_test(lossy_line_without_checksum_is_cut),
		cmocka_unit_test(lossy_line_cut_at_input_end_says_so),
		cmocka_unit_test(lossy_line_cut_inside_checksum_digits_is_cut),
		cmocka_unit_test(prefix_with_one_byte_altered_is_kept_damage),
		cmocka_unit_test(prefix_and_content_altered_is_damaged),
		cmocka_unit_test(prefix_with_two_bytes_altered_is_foreign),
		cmocka_unit_test(almost_prefix_without_checksum_is_foreign),
		cmocka_unit_test(checksum_tab0x_altered_with_matching_digits_is_kept),
		cmocka_unit_test(checksum_digit_replaced_is_damaged),
		cmocka_unit_test(adler32_line_with_bad_hex_is_damaged_or_cut),
		cmocka_unit_test(lossy_types_are_told_by_their_start),
		cmocka_unit_test(plain_row_with_a_letter_is_foreign),
		cmocka_unit_test(plain_last_line_without_newline_is_cut),
		cmocka_unit_test(plain_adler32_line_is_foreign),
		cmocka_unit_test(empty_line_is_empty_in_both_variants),
		cmocka_unit_test(variant_is_the_first_stream_lines),
		cmocka_unit_test(cursor_numbers_lines_and_keeps_an_unended_last),
		cmocka_unit_test(u64_is_strict_decimal),
		cmocka_unit_test(hex32_is_lowercase_without_leading_zero),
		cmocka_unit_test(row_fields_parse_into_time_and_values),
		cmocka_unit_test(json_number_is_found_by_its_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
