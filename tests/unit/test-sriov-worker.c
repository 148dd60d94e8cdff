/* SPDX-License-Identifier: MIT */
/* The SetNumVfs job registry on its own: the writes in a thread, the answer
 * from the event loop, the new count handed to the owner before the caller
 * hears back, one job per PF. The sysfs I/O is a fake; no Manager. */
#include <fcntl.h>
#include <unistd.h>

#include "api/rdmad-api.h"
#include "bus-pair.h"

#include "sriov-worker.h"

/* sriov_numvfs of one PF. Touched by the job's thread only while the test
 * waits in the event loop. */
typedef struct FakePf {
        uint32_t num_vfs;
        int fail_write_of; /* a write of this count fails with -EINVAL; -1: none */
        unsigned writes;
        int block_fd; /* >= 0: each write first waits for a byte here (a driver that hangs) */
} FakePf;

static int fake_read(void *userdata, const char *path, uint32_t *ret) {
        FakePf *pf = userdata;

        assert_string_equal(path, "/sys/devices/pci0000:00/0000:00:02.0/sriov_numvfs");
        *ret = pf->num_vfs;
        return 0;
}

static int fake_write(void *userdata, const char *path, uint32_t value) {
        FakePf *pf = userdata;

        if (pf->block_fd >= 0) {
                char c;
                (void) !read(pf->block_fd, &c, 1);
        }
        pf->writes++;
        if ((int) value == pf->fail_write_of)
                return -EINVAL;
        pf->num_vfs = value;
        return 0;
}

typedef struct Fixture {
        BusPair pair;
        FakePf pf;
        SriovIo io;
        SriovJobRegistry registry;
        BusReply reply;
        char *done_path; /* what the completion callback got */
        uint32_t done_num_vfs;
        bool done_before_reply;
} Fixture;

static void on_done(const char *device_path, uint32_t num_vfs, void *userdata) {
        Fixture *f = userdata;

        free(f->done_path);
        f->done_path = strdup(device_path);
        f->done_num_vfs = num_vfs;
        f->done_before_reply = !f->reply.done;
}

#define PF "/sys/devices/pci0000:00/0000:00:02.0"

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(Fixture));

        bus_pair_new(&f->pair);
        f->pf = (FakePf){ .num_vfs = 2, .fail_write_of = -1, .block_fd = -1 };
        f->io = (SriovIo){ .read = fake_read, .write = fake_write, .userdata = &f->pf };
        sriov_job_registry_init(&f->registry, f->pair.event, on_done, f);
        f->registry.io = &f->io;
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        sriov_job_registry_clear(&f->registry);
        assert_null(f->registry.jobs);
        bus_reply_clear(&f->reply);
        free(f->done_path);
        bus_pair_free(&f->pair);
        free(f);
        return 0;
}

static void test_job_sets_the_count_and_publishes_before_answering(void **state) {
        Fixture *f = *state;

        bus_pair_call(&f->pair, "ReturnsNothing", &f->reply);
        assert_int_equal(sriov_job_start(&f->registry, f->pair.call, NULL, "mlx5_0", PF, 4), 0);
        assert_true(sriov_job_running(&f->registry, PF));

        bus_pair_wait_reply(&f->pair, &f->reply);
        assert_null(f->reply.error_name);
        assert_int_equal(f->pf.num_vfs, 4);
        assert_int_equal(f->pf.writes, 2); /* 2 → 0 → 4 */
        assert_string_equal(f->done_path, PF);
        assert_int_equal(f->done_num_vfs, 4);
        assert_true(f->done_before_reply);
        assert_false(sriov_job_running(&f->registry, PF));
}

static void test_second_job_on_the_same_pf_is_busy(void **state) {
        Fixture *f = *state;
        BusReply second = {};

        bus_pair_call(&f->pair, "ReturnsNothing", &f->reply);
        assert_int_equal(sriov_job_start(&f->registry, f->pair.call, NULL, "mlx5_0", PF, 4), 0);
        bus_pair_call(&f->pair, "ReturnsNothing", &second);
        /* Until the event loop has the first job's answer, that PF is taken. */
        assert_int_equal(sriov_job_start(&f->registry, f->pair.call, NULL, "mlx5_1", PF, 1), -EBUSY);
        assert_true(sriov_job_running(&f->registry, PF));
        assert_false(sriov_job_running(&f->registry, "/sys/devices/pci0000:00/0000:00:03.0"));

        bus_pair_wait_reply(&f->pair, &f->reply);
        assert_null(f->reply.error_name);
        assert_false(second.done); /* never started: the bus layer answers Busy itself */
        bus_reply_clear(&second);
}

static void test_failed_write_answers_failed_with_what_the_pf_has(void **state) {
        Fixture *f = *state;

        f->pf.fail_write_of = 8;
        bus_pair_call(&f->pair, "ReturnsNothing", &f->reply);
        assert_int_equal(sriov_job_start(&f->registry, f->pair.call, NULL, "mlx5_0", PF, 8), 0);
        bus_pair_wait_reply(&f->pair, &f->reply);

        assert_string_equal(f->reply.error_name, RDMAD_ERROR_FAILED);
        assert_non_null(strstr(f->reply.error_message, "Cannot enable 8 VFs on mlx5_0"));
        assert_non_null(strstr(f->reply.error_message, "EINVAL"));
        assert_non_null(strstr(f->reply.error_message, "The previous 2 VFs were restored."));
        assert_int_equal(f->done_num_vfs, 2);
        assert_true(f->done_before_reply);
}

/* A driver write that never returns: the job is answered and let go, the
 * registry is empty, and nothing waits for the thread. */
static void test_abandoned_job_is_answered_and_not_waited_for(void **state) {
        Fixture *f = *state;
        /* Never written to nor closed: the thread stays in its write until the
         * test exits; what it uses is static, so it outlives the fixture. */
        static int hang[2] = { -1, -1 };
        static FakePf pf;
        static SriovIo io;

        assert_int_equal(pipe2(hang, O_CLOEXEC), 0);
        pf = f->pf;
        pf.block_fd = hang[0];
        io = f->io;
        io.userdata = &pf;
        f->registry.io = &io;

        bus_pair_call(&f->pair, "ReturnsNothing", &f->reply);
        assert_int_equal(sriov_job_start(&f->registry, f->pair.call, NULL, "mlx5_0", PF, 4), 0);
        sriov_job_registry_abandon(&f->registry, "rdmad is stopping; the VF change may still complete in the kernel.");
        assert_null(f->registry.jobs);
        bus_pair_wait_reply(&f->pair, &f->reply);
        assert_string_equal(f->reply.error_name, RDMAD_ERROR_FAILED);
        assert_string_equal(f->reply.error_message,
                            "rdmad is stopping; the VF change may still complete in the kernel.");
        assert_null(f->done_path); /* nothing known to publish */
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_job_sets_the_count_and_publishes_before_answering, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_second_job_on_the_same_pf_is_busy, setup, teardown),
                cmocka_unit_test_setup_teardown(test_abandoned_job_is_answered_and_not_waited_for, setup, teardown),
                cmocka_unit_test_setup_teardown(test_failed_write_answers_failed_with_what_the_pf_has, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
