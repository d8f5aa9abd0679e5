// How long an attribution request will take, said before it starts: the engine counts the
// request's work (session.attributionCost: multiply-adds, about) and this keeps the speed the
// worker measured on the requests it already ran. The one place the estimate is made.
export class WorkTimer {
  #work = 0;
  #ms = 0;

  /** A request of `work` multiply-adds took `ms` milliseconds. */
  record(work, ms) {
    if (!(work > 0) || !(ms >= 0)) return;
    this.#work += work;
    this.#ms += ms;
  }

  /**
   * Milliseconds `work` will take at the speed measured so far (every request's work over its
   * time, so the big ones weigh most), or null before the first measurement.
   */
  estimate(work) {
    return this.#work > 0 ? (work * this.#ms) / this.#work : null;
  }
}
