import TroveIngest

/// How the extraction worker is run: its limits, its watchdog and how often it is replaced.
package struct WorkerPolicy: Sendable, Equatable {
    /// Wall-clock limit on one file: past it the worker (and what it started) is killed and the file is a timeout.
    /// pdftotext reads about 300 pages/s on this class of machine (3.5 ms a page, measured for issue 27), so a
    /// 5,000-page PDF takes under 20 s.
    package var timeout: Duration = .seconds(60)
    /// The worker's address-space limit (RLIMIT_AS), which its tools inherit.
    package var memoryBytes = 4 << 30
    /// Open descriptors the worker may hold (RLIMIT_NOFILE).
    package var openFiles = 64
    /// A worker is replaced after this many files, so that a slow leak in a parser cannot build up.
    package var filesPerWorker = 1_000
    /// Run the worker inside bubblewrap (no network, read-only system, no home) when `bwrap` works here.
    package var confine = true

    /// The defaults.
    package init() {}
}
