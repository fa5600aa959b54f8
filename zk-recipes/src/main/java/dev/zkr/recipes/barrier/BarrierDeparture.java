package dev.zkr.recipes.barrier;

/** How this member departs in one leave: with the mark check first, then (if a lower member is present) plainly. */
final class BarrierDeparture {
    /** We are the lowest present: keep our node until the others are gone. */
    volatile boolean stay;
    /** Depart only if our node is not marked ({@code check(own, version 0)}); once that failed, plainly. */
    volatile boolean checked = true;
}
