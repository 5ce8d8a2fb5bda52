/** A thread for the thread pool's tests whose module fails as it loads. */
throw new Error('this thread cannot load');
