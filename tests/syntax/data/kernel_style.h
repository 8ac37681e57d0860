/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Definitions written the way the Linux kernel writes them: attribute macros in the
 * specifiers, loop macros in bodies, typedefs of every shape, macros of both kinds.
 * A string or a comment that mentions kmalloc_array is not a use of it.
 */
#ifndef _KERNEL_STYLE_H
#define _KERNEL_STYLE_H

#define ARCH_KMALLOC_MINALIGN 8
#define max_t(type, x, y) ({			\
	type __x = (x);				\
	type __y = (y);				\
	__x > __y ? __x : __y; })

typedef unsigned int gfp_t;
typedef int (*handler_t)(int irq, void *data);
typedef struct {
	int counter;
} atomic_t;
typedef struct list_head {
	struct list_head *next, *prev;
} list_head_t;
typedef enum { SLAB_A, SLAB_B } slab_kind;

struct kmem_cache {
	unsigned int size;
	union {
		void *ptr;
		unsigned long val;
	} u;
	struct kmem_cache_node {
		int nr;
	} node;
};

union kmalloc_word {
	int i;
	long l;
};

enum kmalloc_cache_type {
	KMALLOC_NORMAL = 0,
	KMALLOC_DMA,
};

void *__kmalloc(size_t size, gfp_t flags) __assume_kmalloc_alignment __alloc_size(1);

static __always_inline __alloc_size(1) void *kmalloc(size_t size, gfp_t flags)
{
	return __kmalloc(size, flags);
}

static inline __alloc_size(1, 2) void *kmalloc_array(size_t n, size_t size, gfp_t flags)
{
	size_t bytes;

	if (unlikely(check_mul_overflow(n, size, &bytes)))
		return NULL;
	return __kmalloc(bytes, flags);
}

static inline __printf(2, 0)
void trace_seq_bprintf(struct trace_seq *s, const char *fmt, const u32 *binary)
{
}

static inline void
kfree_list(struct list_head *head)
{
	struct list_head *pos;

	list_for_each(pos, head) {
		kfree(pos);
	}
}

static void __init slab_init(void)
{
	const char *name = "kmalloc_array";	/* kmalloc_array in a comment */

	pr_info("%s\n", name);
}

DECLARE_SLAB_CACHE(kmalloc_caches)

static inline int kmalloc_index(size_t size) { return size > 8 ? 3 : 0; }

#endif /* _KERNEL_STYLE_H */
