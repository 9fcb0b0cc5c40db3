import Support

/// Runs `body` on a thread of its own (not a Dispatch worker: libdispatch watches its
/// workers once a second while one is busy, which would wake an idle display) and hands
/// its result to the caller's task. The thread asks for nice -5 where it may (root, or the
/// unit's `LimitNICE`), so busy clients of the control socket cannot make frames late.
func onRenderThread(_ body: @escaping @Sendable () -> Int32) async -> Int32 {
    await onThread(named: "marquee-render", nice: renderThreadNice, body) ?? 1
}

/// The render thread's nice value, where the process may lower it.
private let renderThreadNice: Int32 = -5
