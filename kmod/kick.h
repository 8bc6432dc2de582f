/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rate of the rescans cgroup events start (follow.c), as a token
 * bucket in the form of the generic cell rate algorithm: @burst rescans
 * may run back to back, then one every @gap.  *@tat is the bucket's
 * theoretical arrival time; a rescan at @now conforms when
 * @now >= *@tat - (@burst - 1) x @gap, and moves *@tat to
 * max(*@tat, @now) + @gap.  In jiffies, pure: KUnit tests it
 * (tests/kunit/kick_test.c).
 */
#ifndef KSNAP_KICK_H
#define KSNAP_KICK_H

#include <linux/jiffies.h>

/**
 * ksnap_kick_take() - a rescan runs at @now: the time the next may run
 * @tat: the bucket's state, updated
 * @now: jiffies, at or after the time the last call returned
 * @gap: jiffies between rescans once the burst is spent
 * @burst: rescans that may run back to back, at least 1
 *
 * Return: the jiffies before which no other rescan may run.
 */
static inline unsigned long ksnap_kick_take(unsigned long *tat,
					    unsigned long now,
					    unsigned long gap,
					    unsigned int burst)
{
	if (time_before(*tat, now))
		*tat = now;
	*tat += gap;
	return *tat - (burst - 1) * gap;
}

#endif /* KSNAP_KICK_H */
