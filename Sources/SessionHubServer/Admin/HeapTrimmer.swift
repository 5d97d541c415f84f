#if canImport(Glibc)
import Glibc
#endif

/// Gives the heap memory the process freed back to the system.
///
/// glibc keeps freed memory in its arenas for reuse; after bursts of large messages (the soak's
/// 15 KiB recasts, docs/SOAK.md) an idle hub held 86 MiB of RSS with 4 MiB in use, and the figure
/// only ever grew. `malloc_trim(0)` releases the free pages of every arena (85.8 → 43.2 MiB there).
/// The hub calls ``trim()`` every ``HubServerConfiguration/heapTrimIntervalSeconds``.
public enum HeapTrimmer {
    private typealias MallocTrim = @convention(c) (Int) -> Int32

    /// glibc's `malloc_trim` (declared in `<malloc.h>`, which the Glibc module does not export),
    /// looked up once; nil with another C library.
    private static let mallocTrim: MallocTrim? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: MallocTrim.self)
        #else
        return nil
        #endif
    }()

    /// Releases free heap pages to the system; returns whether any were released. A no-op
    /// (false) where the C library has no `malloc_trim`.
    @discardableResult
    public static func trim() -> Bool {
        guard let mallocTrim else { return false }
        return mallocTrim(0) == 1
    }
}
