#define _GNU_SOURCE
#include "CLinux.h"
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <wchar.h>
#include <linux/cec.h>
#include <linux/fb.h>
#include <linux/kd.h>
#include <linux/vt.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <poll.h>
#include <spawn.h>
#include <malloc.h>
#include <pthread.h>
#include <string.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <linux/netlink.h>
#include <time.h>
#include <unistd.h>

int mq_terminal_size(int fd, unsigned short *rows, unsigned short *columns) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) return -1;
    *rows = size.ws_row;
    *columns = size.ws_col;
    return 0;
}

/* The UTF-8 locale wcwidth reads, made once for every thread (pthread_once: the first callers
   may be two threads at once). */
static locale_t utf8_locale;
static pthread_once_t utf8_locale_made = PTHREAD_ONCE_INIT;

static void make_utf8_locale(void) {
    utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", 0);
}

int mq_cell_width(uint32_t code_point) {
    pthread_once(&utf8_locale_made, make_utf8_locale);
    if (!utf8_locale) return wcwidth((wchar_t)code_point);
    locale_t previous = uselocale(utf8_locale);
    int width = wcwidth((wchar_t)code_point);
    uselocale(previous);
    return width;
}

int mq_is_linux_console(int fd) {
    int mode;
    return ioctl(fd, KDGETMODE, &mode) == 0;
}

int mq_console_font_map(int fd, uint32_t *codes, int capacity) {
    if (capacity <= 0) return -1;
    if (capacity > 65535) capacity = 65535;
    struct unipair *pairs = malloc(sizeof *pairs * (size_t)capacity);
    if (!pairs) return -1;
    struct unimapdesc map = { .entry_ct = (unsigned short)capacity, .entries = pairs };
    if (ioctl(fd, GIO_UNIMAP, &map) != 0) {
        free(pairs);
        return -1;
    }
    /* Glyphs at the control codes' positions (the bullet at 7 in the kernel's own font) are
       drawn as nothing: they do not count. */
    int count = 0;
    for (int i = 0; i < map.entry_ct; i++) {
        if (pairs[i].fontpos >= 32) codes[count++] = pairs[i].unicode;
    }
    free(pairs);
    return count;
}

static int signal_pipe = -1;

static void forward(int signal) {
    int saved = errno;
    unsigned char byte = (unsigned char)signal;
    (void)!write(signal_pipe, &byte, 1);
    errno = saved;
}

void mq_route_signals(int fd, const int *signals, int count) {
    signal_pipe = fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = forward;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigset_t wanted;
    sigemptyset(&wanted);
    for (int i = 0; i < count; i++) {
        sigaction(signals[i], &action, 0);
        sigaddset(&wanted, signals[i]);
    }
    /* A thread started from a libdispatch worker inherits its mask, which blocks them all. */
    pthread_sigmask(SIG_UNBLOCK, &wanted, 0);
    signal(SIGPIPE, SIG_IGN);
}

int mq_wait_readable(int fd, int64_t timeout_ns) {
    struct pollfd watched = {.fd = fd, .events = POLLIN};
    if (timeout_ns < 0) return poll(&watched, 1, -1);
    struct timespec timeout = {.tv_sec = timeout_ns / 1000000000, .tv_nsec = timeout_ns % 1000000000};
    return ppoll(&watched, 1, &timeout, 0);
}

static int arm_clock_change(int fd) {
    struct itimerspec far = {.it_value = {.tv_sec = INT32_MAX}};
    return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &far, 0);
}

int mq_clock_change_fd(void) {
    int fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
    if (fd < 0) return -1;
    if (arm_clock_change(fd) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int mq_take_clock_change(int fd) {
    uint64_t expirations;
    if (read(fd, &expirations, sizeof expirations) >= 0) return 0;
    if (errno == EAGAIN) return 0;
    if (errno != ECANCELED) return -1;
    return arm_clock_change(fd) == 0 ? 1 : 2;
}

int mq_peer_credentials(int fd, uint32_t *uid, uint32_t *gid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

int mq_peer_groups(int fd, uint32_t *groups, int capacity) {
    socklen_t length = (socklen_t)(capacity * sizeof(gid_t));
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &length) != 0) return -1;
    return (int)(length / sizeof(gid_t));
}

int mq_accept(int fd) { return accept4(fd, 0, 0, SOCK_CLOEXEC | SOCK_NONBLOCK); }

int mq_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int mq_name_thread(const char *name) { return pthread_setname_np(pthread_self(), name); }

int mq_die_with_parent(int parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return -1;
    /* The parent may have ended before the call: then nothing would ever come. */
    return getppid() == parent ? 0 : 1;
}

int mq_map_allocations_from(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

int mq_fb_info(int fd, struct mq_fb_info *info) {
    struct fb_var_screeninfo var;
    struct fb_fix_screeninfo fix;
    if (ioctl(fd, FBIOGET_VSCREENINFO, &var) != 0 || ioctl(fd, FBIOGET_FSCREENINFO, &fix) != 0) return -1;
    memset(info, 0, sizeof *info);
    info->width = var.xres;
    info->height = var.yres;
    info->virtual_width = var.xres_virtual;
    info->virtual_height = var.yres_virtual;
    info->x_offset = var.xoffset;
    info->y_offset = var.yoffset;
    info->bits_per_pixel = var.bits_per_pixel;
    info->red_offset = var.red.offset;
    info->red_length = var.red.length;
    info->green_offset = var.green.offset;
    info->green_length = var.green.length;
    info->blue_offset = var.blue.offset;
    info->blue_length = var.blue.length;
    info->alpha_offset = var.transp.offset;
    info->alpha_length = var.transp.length;
    info->line_length = fix.line_length;
    info->memory_length = fix.smem_len;
    info->visual = fix.visual;
    info->pixclock = var.pixclock;
    info->left_margin = var.left_margin;
    info->right_margin = var.right_margin;
    info->upper_margin = var.upper_margin;
    info->lower_margin = var.lower_margin;
    info->hsync_len = var.hsync_len;
    info->vsync_len = var.vsync_len;
    memcpy(info->id, fix.id, sizeof fix.id);
    info->id[16] = 0;
    return 0;
}

int mq_fb_activate(int fd) {
    struct fb_var_screeninfo var;
    if (ioctl(fd, FBIOGET_VSCREENINFO, &var) != 0) return -1;
    var.activate = FB_ACTIVATE_NOW | FB_ACTIVATE_FORCE;
    return ioctl(fd, FBIOPUT_VSCREENINFO, &var);
}

int mq_fb_blank(int fd, int blank) {
    return ioctl(fd, FBIOBLANK, blank ? FB_BLANK_POWERDOWN : FB_BLANK_UNBLANK);
}

int mq_fb_wait_for_vsync(int fd) {
    __u32 crtc = 0;
    return ioctl(fd, FBIO_WAITFORVSYNC, &crtc);
}

int mq_console_set_graphics(int fd, int graphics) {
    return ioctl(fd, KDSETMODE, graphics ? KD_GRAPHICS : KD_TEXT);
}

int mq_console_number(int fd) {
    struct stat info;
    if (fstat(fd, &info) != 0 || !S_ISCHR(info.st_mode) || major(info.st_rdev) != 4) return 0;
    unsigned number = minor(info.st_rdev);
    return number >= 1 && number <= 63 ? (int)number : 0;
}

int mq_console_active(int fd) {
    struct vt_stat state;
    if (ioctl(fd, VT_GETSTATE, &state) != 0) return 0;
    return state.v_active;
}

int mq_console_process_switching(int fd, int signal) {
    struct vt_mode mode = {.mode = VT_PROCESS, .relsig = (short)signal, .acqsig = (short)signal};
    return ioctl(fd, VT_SETMODE, &mode);
}

int mq_console_auto_switching(int fd) {
    struct vt_mode mode = {.mode = VT_AUTO};
    return ioctl(fd, VT_SETMODE, &mode);
}

int mq_console_release(int fd, int answer) { return ioctl(fd, VT_RELDISP, answer); }

int mq_uevent_socket(void) {
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
    if (fd < 0) return -1;
    struct sockaddr_nl address = {.nl_family = AF_NETLINK, .nl_groups = 1};
    if (bind(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int mq_cec_physical_address(int fd, uint16_t *address) { return ioctl(fd, CEC_ADAP_G_PHYS_ADDR, address); }

int mq_cec_claim(int fd, const char *osd_name) {
    struct cec_log_addrs addresses;
    memset(&addresses, 0, sizeof addresses);
    if (ioctl(fd, CEC_ADAP_G_LOG_ADDRS, &addresses) != 0) return -1;
    if (addresses.num_log_addrs == 0) {
        memset(&addresses, 0, sizeof addresses);
        addresses.cec_version = CEC_OP_CEC_VERSION_2_0;
        addresses.vendor_id = CEC_VENDOR_ID_NONE;
        addresses.num_log_addrs = 1;
        strncpy(addresses.osd_name, osd_name, sizeof addresses.osd_name - 1);
        addresses.primary_device_type[0] = CEC_OP_PRIM_DEVTYPE_PLAYBACK;
        addresses.log_addr_type[0] = CEC_LOG_ADDR_TYPE_PLAYBACK;
        addresses.all_device_types[0] = CEC_OP_ALL_DEVTYPE_PLAYBACK;
        if (ioctl(fd, CEC_ADAP_S_LOG_ADDRS, &addresses) != 0) return -1;
    }
    uint32_t mode = CEC_MODE_INITIATOR | CEC_MODE_FOLLOWER;
    if (ioctl(fd, CEC_S_MODE, &mode) != 0) return -1;
    return addresses.log_addr[0];
}

int mq_cec_transmit(int fd, uint8_t to, uint8_t opcode, const uint8_t *operands, int length, uint8_t reply,
                    uint32_t timeout_ms, uint8_t *answer, int *answer_length, uint8_t *tx_status, uint8_t *rx_status) {
    if (length < 0 || length > CEC_MAX_MSG_SIZE - 2) {
        errno = EINVAL;
        return -1;
    }
    struct cec_log_addrs addresses;
    if (ioctl(fd, CEC_ADAP_G_LOG_ADDRS, &addresses) != 0) return -1;
    struct cec_msg message;
    memset(&message, 0, sizeof message);
    message.msg[0] = (uint8_t)((addresses.log_addr[0] & 0xf) << 4 | (to & 0xf));
    message.msg[1] = opcode;
    memcpy(message.msg + 2, operands, (size_t)length);
    message.len = (uint32_t)(2 + length);
    message.reply = reply;
    message.timeout = reply ? timeout_ms : 0;
    if (ioctl(fd, CEC_TRANSMIT, &message) != 0) return -1;
    *tx_status = message.tx_status;
    *rx_status = message.rx_status;
    *answer_length = 0;
    if (reply && (message.rx_status & CEC_RX_STATUS_OK) && message.len >= 2) {
        *answer_length = (int)message.len - 2;
        memcpy(answer, message.msg + 2, (size_t)*answer_length);
    }
    return 0;
}

int mq_cec_receive(int fd, uint32_t timeout_ms, uint8_t *from, uint8_t *to, uint8_t *opcode, uint8_t *operands,
                   int *length) {
    struct cec_msg message;
    memset(&message, 0, sizeof message);
    message.timeout = timeout_ms;
    if (ioctl(fd, CEC_RECEIVE, &message) != 0) return errno == ETIMEDOUT ? 0 : -1;
    if (message.len < 2) return 0;
    *from = message.msg[0] >> 4;
    *to = message.msg[0] & 0xf;
    *opcode = message.len >= 2 ? message.msg[1] : 0;
    *length = message.len >= 2 ? (int)message.len - 2 : 0;
    memcpy(operands, message.msg + 2, (size_t)*length);
    return 1;
}

int mq_spawn_close_others(posix_spawn_file_actions_t *actions) {
    return posix_spawn_file_actions_addclosefrom_np(actions, 3);
}

int mq_spawn_chdir(posix_spawn_file_actions_t *actions, const char *directory) {
    return posix_spawn_file_actions_addchdir_np(actions, directory);
}
