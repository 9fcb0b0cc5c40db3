#pragma once
/* The Linux calls Swift cannot make directly (variadic ioctl with typed arguments,
   signal handlers). Nothing else belongs here. */
#include <spawn.h>
#include <signal.h>
#include <stdint.h>
#include <linux/cec.h>

/* Rows and columns of the terminal on fd; 0 on success. */
int mq_terminal_size(int fd, unsigned short *rows, unsigned short *columns);
/* Terminal cells of a code point by the C library's wcwidth in a UTF-8 locale. */
int mq_cell_width(uint32_t code_point);
/* 1 if fd is a Linux virtual console (KDGETMODE succeeds). */
int mq_is_linux_console(int fd);
/* The code points the Linux console's font on fd draws (GIO_UNIMAP, glyphs at the control codes'
   positions left out), at most `capacity` of them into `codes`; how many, or -1 (not a console,
   or not allowed). */
int mq_console_font_map(int fd, uint32_t *codes, int capacity);
/* From now on each of the `count` signals writes its number as one byte to fd (a non-blocking
   pipe), whichever thread it interrupts; unblocks them in the calling thread and ignores
   SIGPIPE. */
void mq_route_signals(int fd, const int *signals, int count);
/* ppoll (a _GNU_SOURCE call) for fd to turn readable, at most timeout_ns (negative: no
   limit); nanosecond timeouts, where poll rounds to milliseconds. */
int mq_wait_readable(int fd, int64_t timeout_ns);
/* The uid and gid of the process at the other end of a Unix socket (SO_PEERCRED). */
int mq_peer_credentials(int fd, uint32_t *uid, uint32_t *gid);
/* Its supplementary groups as the kernel knows them (SO_PEERGROUPS), at most `capacity` into
   `groups`; how many, or -1. */
int mq_peer_groups(int fd, uint32_t *groups, int capacity);
/* accept4 with SOCK_CLOEXEC | SOCK_NONBLOCK. */
int mq_accept(int fd);
/* pipe2 with O_CLOEXEC: no child spawned meanwhile by another thread inherits an end. */
int mq_pipe(int fds[2]);
/* Has a child started with `actions` close every descriptor above its standard streams
   (glibc's posix_spawn_file_actions_addclosefrom_np): it gets only what it is handed, never
   what another thread of the parent has open at that moment. */
int mq_spawn_close_others(posix_spawn_file_actions_t *actions);
/* Has a child started with `actions` begin in `directory` (posix_spawn_file_actions_addchdir_np). */
int mq_spawn_chdir(posix_spawn_file_actions_t *actions, const char *directory);
/* Names the calling thread (at most 15 bytes), as ps and /proc/PID/task show it. */
int mq_name_thread(const char *name);
/* Has the kernel kill this process when the thread that started it ends (PR_SET_PDEATHSIG with
   SIGKILL); 1 if that parent is gone already (the process is the init's or a subreaper's now),
   0 when armed, -1 on failure. `parent` is the pid the process was started by. */
int mq_die_with_parent(int parent);

/// Allocations of `bytes` or more are mapped on their own and given back to the system when
/// freed (glibc's M_MMAP_THRESHOLD, fixed rather than rising with use).
int mq_map_allocations_from(int bytes);
/* A timerfd that turns readable when CLOCK_REALTIME is set (NTP step, date -s, suspend). */
int mq_clock_change_fd(void);
/* Reads it: 1 if the clock was set (and re-arms it), 2 if it was set and cannot be re-armed
   (errno), 0 if nothing happened, -1 when it cannot be read (errno). */
int mq_take_clock_change(int fd);
/* A netlink socket receiving the kernel's device events (uevents: "change@/devices/...", then
   KEY=value strings), non-blocking; -1 on error. */
int mq_uevent_socket(void);

/* What the framebuffer driver says about its mode (FBIOGET_VSCREENINFO + FBIOGET_FSCREENINFO). */
struct mq_fb_info {
    uint32_t width, height, virtual_width, virtual_height, x_offset, y_offset, bits_per_pixel;
    uint32_t red_offset, red_length, green_offset, green_length, blue_offset, blue_length;
    uint32_t alpha_offset, alpha_length;
    uint32_t line_length, memory_length, visual;
    /* Timings for the refresh rate; pixclock 0 means unknown. */
    uint32_t pixclock, left_margin, right_margin, upper_margin, lower_margin, hsync_len, vsync_len;
    char id[17];
};
int mq_fb_info(int fd, struct mq_fb_info *info);
/* Sets the device's current mode again (FBIOPUT_VSCREENINFO with FB_ACTIVATE_FORCE): a DRM
   driver's fbdev emulation programs the display only then, and with the console in graphics
   mode nothing else does it after the driver took over from the firmware framebuffer. */
int mq_fb_activate(int fd);
/* FBIOBLANK: 1 powers the display down (FB_BLANK_POWERDOWN), 0 up again; -1 (errno) when the
   driver cannot. */
int mq_fb_blank(int fd, int blank);
/* FBIO_WAITFORVSYNC on CRTC 0: 0 when it returned, -1 (errno) when the driver has none. */
int mq_fb_wait_for_vsync(int fd);
/* KDSETMODE: 1 graphics (the console stops drawing), 0 text. */
int mq_console_set_graphics(int fd, int graphics);
/* The VT number of a console fd (from its device number), 0 if it is none. */
int mq_console_number(int fd);
/* The active VT (VT_GETSTATE), 0 on failure. */
int mq_console_active(int fd);
/* VT_SETMODE: VT_PROCESS with `signal` for release and acquire (0 on success), or VT_AUTO. */
int mq_console_process_switching(int fd, int signal);
int mq_console_auto_switching(int fd);
/* VT_RELDISP: 1 lets a switch away go ahead, 2 (VT_ACKACQ) acknowledges getting it back. */
int mq_console_release(int fd, int answer);

/* HDMI-CEC through the kernel's CEC API (linux/cec.h); no library. */
/* The adapter's physical address (0xffff: none, nothing connected); 0 on success. */
int mq_cec_physical_address(int fd, uint16_t *address);
/* Claims one logical address of the Playback kind under `osd_name` (blocks until the kernel
   has one, or it failed) and asks for the messages sent to it (initiator and follower);
   the logical address claimed (0xf: none), or -1 (errno). */
int mq_cec_claim(int fd, const char *osd_name);
/* One message from the claimed address to `to` (0xf: everybody): `opcode` and `length` bytes
   of `operands`. With `reply` (an opcode, nonzero) it waits up to `timeout_ms` for that
   answer, whose operands go to `answer` (at most 14 bytes; their count to `answer_length`).
   The transmit and receive statuses (CEC_TX_STATUS_*, CEC_RX_STATUS_*) go to `tx_status` and
   `rx_status`; -1 (errno) when the kernel refused it. */
int mq_cec_transmit(int fd, uint8_t to, uint8_t opcode, const uint8_t *operands, int length, uint8_t reply,
                    uint32_t timeout_ms, uint8_t *answer, int *answer_length, uint8_t *tx_status, uint8_t *rx_status);
/* The next message received within `timeout_ms`: who sent it, to whom, its opcode and
   operands; 1 for a message, 0 for none in time (or a poll, which carries nothing), -1 (errno). */
int mq_cec_receive(int fd, uint32_t timeout_ms, uint8_t *from, uint8_t *to, uint8_t *opcode, uint8_t *operands,
                   int *length);
