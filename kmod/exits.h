/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When each cgroup a pattern matches was made (exits.c): a table of ids
 * and mkdir times, so that an exit record can say how long its cgroup
 * lived.  Fixed size, no allocation: an id has KSNAP_BORN_PROBES slots it
 * may take, from its hash on; a cgroup that finds them all taken is not
 * remembered (its exit record has no birth).  A lookup looks at every one
 * of its slots, so a slot freed in the middle needs no tombstone.  Pure:
 * the caller serialises (the probes run under cgroup_mutex), and the
 * KUnit suite ksnap_exits tests it.
 */
#ifndef KSNAP_EXITS_H
#define KSNAP_EXITS_H

#include <linux/bits.h>
#include <linux/hash.h>
#include <linux/types.h>

#define KSNAP_BORN_BITS		10
#define KSNAP_BORN_SLOTS	BIT(KSNAP_BORN_BITS)
#define KSNAP_BORN_PROBES	8

struct ksnap_born {
	u64 id;		/* a cgroup's id; 0 for a free slot (no cgroup has 0) */
	u64 ns;		/* its mkdir */
};

static inline unsigned int ksnap_born_slot(u64 id, unsigned int i)
{
	return (hash_64(id, KSNAP_BORN_BITS) + i) & (KSNAP_BORN_SLOTS - 1);
}

/* Remember @id made at @ns: false when its slots are all taken. */
static inline bool ksnap_born_add(struct ksnap_born *t, u64 id, u64 ns)
{
	unsigned int i;

	for (i = 0; i < KSNAP_BORN_PROBES; i++) {
		struct ksnap_born *b = &t[ksnap_born_slot(id, i)];

		if (!b->id || b->id == id) {
			b->id = id;
			b->ns = ns;
			return true;
		}
	}
	return false;
}

/* Forget @id, into *@ns when it was remembered: whether it was. */
static inline bool ksnap_born_take(struct ksnap_born *t, u64 id, u64 *ns)
{
	unsigned int i;

	for (i = 0; i < KSNAP_BORN_PROBES; i++) {
		struct ksnap_born *b = &t[ksnap_born_slot(id, i)];

		if (b->id == id) {
			*ns = b->ns;
			b->id = 0;
			return true;
		}
	}
	return false;
}

#endif /* KSNAP_EXITS_H */
