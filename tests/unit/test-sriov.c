/* SPDX-License-Identifier: MIT */
/* SetNumVfs's sysfs sequence against a scripted PF: every error path. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "basic/util.h"
#include "sriov.h"

typedef struct FakePf {
        uint32_t numvfs;
        uint32_t cap; /* the driver enables at most this many */
        int read_error;
        int write_errors[8];    /* result of the n-th write */
        int reads_before_error; /* with read_error: reads that still succeed */
        unsigned writes;
        uint32_t written[8];
} FakePf;

static int fake_read(void *userdata, const char *path, uint32_t *ret) {
        FakePf *f = userdata;

        assert_string_equal(path, "/sys/devices/pf/sriov_numvfs");
        if (f->read_error) {
                if (f->reads_before_error == 0)
                        return f->read_error;
                f->reads_before_error--;
        }
        *ret = f->numvfs;
        return 0;
}

static int fake_write(void *userdata, const char *path, uint32_t value) {
        FakePf *f = userdata;
        unsigned n = f->writes++;

        assert_true(n < 8);
        f->written[n] = value;
        if (f->write_errors[n])
                return f->write_errors[n];
        /* The kernel: N → M with both non-zero is EBUSY. */
        if (value != 0 && f->numvfs != 0)
                return -EBUSY;
        f->numvfs = value < f->cap ? value : f->cap;
        return 0;
}

static SriovResult run(FakePf *f, uint32_t count, char *msg, size_t size) {
        SriovIo io = { fake_read, fake_write, f };
        SriovResult r;

        if (f->cap == 0)
                f->cap = 8;
        sriov_set_num_vfs(&io, "/sys/devices/pf/sriov_numvfs", count, &r);
        sriov_result_message(&r, "mlx5_0", count, msg, size);
        return r;
}

static void test_nothing_to_do(void **state) {
        FakePf f = { .numvfs = 4 };
        char msg[512];
        SriovResult r = run(&f, 4, msg, sizeof(msg));

        assert_int_equal(r.failed_step, SRIOV_STEP_NONE);
        assert_int_equal(f.writes, 0);
        assert_false(r.wrote);
        assert_int_equal(r.after, 4);
}

static void test_from_zero_writes_only_the_count(void **state) {
        FakePf f = { .numvfs = 0 };
        char msg[512];
        SriovResult r = run(&f, 4, msg, sizeof(msg));

        assert_int_equal(r.failed_step, SRIOV_STEP_NONE);
        assert_int_equal(f.writes, 1);
        assert_int_equal(f.written[0], 4);
        assert_int_equal(r.before, 0);
        assert_int_equal(r.after, 4);
}

static void test_n_to_m_goes_through_zero(void **state) {
        FakePf f = { .numvfs = 4 };
        char msg[512];
        SriovResult r = run(&f, 8, msg, sizeof(msg));

        assert_int_equal(r.failed_step, SRIOV_STEP_NONE);
        assert_int_equal(f.writes, 2);
        assert_int_equal(f.written[0], 0);
        assert_int_equal(f.written[1], 8);
        assert_int_equal(f.numvfs, 8);
}

static void test_to_zero_writes_only_zero(void **state) {
        FakePf f = { .numvfs = 4 };
        char msg[512];
        SriovResult r = run(&f, 0, msg, sizeof(msg));

        assert_int_equal(r.failed_step, SRIOV_STEP_NONE);
        assert_int_equal(f.writes, 1);
        assert_int_equal(f.written[0], 0);
        assert_int_equal(r.after, 0);
}

static void test_unreadable_count_writes_nothing(void **state) {
        FakePf f = { .numvfs = 4, .read_error = -ENOENT };
        char msg[512];
        SriovResult r = run(&f, 8, msg, sizeof(msg));

        assert_int_equal(r.failed_step, SRIOV_STEP_READ);
        assert_int_equal(r.error, -ENOENT);
        assert_int_equal(f.writes, 0);
        assert_string_equal(msg, "Cannot read the VF count of mlx5_0: No such file or directory (ENOENT). "
                                 "Nothing was written.");
}

static void test_disable_refused(void **state) {
        FakePf f = { .numvfs = 4, .write_errors = { -EBUSY } };
        char msg[512];
        SriovResult r = run(&f, 2, msg, sizeof(msg));

        assert_int_equal(r.failed_step, SRIOV_STEP_DISABLE);
        assert_int_equal(r.error, -EBUSY);
        assert_int_equal(f.writes, 1);
        assert_int_equal(r.after, 4);
        assert_string_equal(msg, "Cannot disable the 4 VFs of mlx5_0: Device or resource busy (EBUSY). "
                                 "NumVfs is now 4.");
}

static void test_enable_fails_after_disabling_and_restore_works(void **state) {
        FakePf f = { .numvfs = 4, .write_errors = { 0, -ERANGE, 0 } };
        char msg[512];
        SriovResult r = run(&f, 8, msg, sizeof(msg));

        assert_int_equal(r.failed_step, SRIOV_STEP_ENABLE);
        assert_int_equal(r.error, -ERANGE);
        assert_int_equal(f.writes, 3);
        assert_int_equal(f.written[0], 0);
        assert_int_equal(f.written[1], 8);
        assert_int_equal(f.written[2], 4); /* the previous count */
        assert_true(r.restore_attempted);
        assert_true(r.restore_ok);
        assert_int_equal(r.after, 4);
        assert_string_equal(msg, "Cannot enable 8 VFs on mlx5_0: Numerical result out of range (ERANGE). "
                                 "The previous 4 VFs were restored. NumVfs is now 4.");
}

static void test_enable_fails_and_restore_fails_too(void **state) {
        FakePf f = { .numvfs = 4, .write_errors = { 0, -EINVAL, -EIO } };
        char msg[512];
        SriovResult r = run(&f, 8, msg, sizeof(msg));

        assert_int_equal(r.failed_step, SRIOV_STEP_ENABLE);
        assert_true(r.restore_attempted);
        assert_false(r.restore_ok);
        assert_int_equal(r.restore_error, -EIO);
        assert_int_equal(r.after, 0); /* the VFs are gone: said plainly */
        assert_string_equal(msg, "Cannot enable 8 VFs on mlx5_0: Invalid argument (EINVAL). Restoring the previous "
                                 "4 VFs failed too: Input/output error (EIO). NumVfs is now 0.");
}

static void test_restore_that_enables_fewer_is_not_ok(void **state) {
        FakePf f = { .numvfs = 4, .write_errors = { 0, -ENOMEM, 0 } };
        char msg[512];
        SriovResult r;

        f.cap = 8;
        f.numvfs = 4;
        /* After the failed enable, the driver can only bring back 2. */
        r = (SriovResult){};
        {
                SriovIo io = { fake_read, fake_write, &f };
                f.cap = 2;
                sriov_set_num_vfs(&io, "/sys/devices/pf/sriov_numvfs", 8, &r);
                sriov_result_message(&r, "mlx5_0", 8, msg, sizeof(msg));
        }
        assert_true(r.restore_attempted);
        assert_false(r.restore_ok);
        assert_int_equal(r.after, 2);
        assert_non_null(strstr(msg, "Restoring the previous 4 VFs failed too"));
        assert_non_null(strstr(msg, "NumVfs is now 2."));
}

static void test_enable_from_zero_fails_without_restore(void **state) {
        FakePf f = { .numvfs = 0, .write_errors = { -ENOENT } };
        char msg[512];
        SriovResult r = run(&f, 8, msg, sizeof(msg));

        assert_int_equal(r.failed_step, SRIOV_STEP_ENABLE);
        assert_false(r.restore_attempted);
        assert_int_equal(f.writes, 1);
        assert_string_equal(msg, "Cannot enable 8 VFs on mlx5_0: No such file or directory (ENOENT). "
                                 "NumVfs is now 0.");
}

static void test_driver_enables_fewer(void **state) {
        FakePf f = { .numvfs = 0, .cap = 3 };
        char msg[512];
        SriovResult r = run(&f, 8, msg, sizeof(msg));

        assert_int_equal(r.failed_step, SRIOV_STEP_VERIFY);
        assert_int_equal(r.error, 0);
        assert_int_equal(r.after, 3);
        assert_string_equal(msg, "8 VFs requested on mlx5_0, the driver enabled 3. NumVfs is now 3.");
}

static void test_final_reread_fails(void **state) {
        FakePf f = { .numvfs = 0, .read_error = -EIO, .reads_before_error = 1 };
        char msg[512];
        SriovResult r = run(&f, 8, msg, sizeof(msg));

        assert_int_equal(r.failed_step, SRIOV_STEP_VERIFY);
        assert_false(r.after_known);
        assert_string_equal(msg, "8 VFs requested on mlx5_0; NumVfs is now unknown (cannot read sriov_numvfs).");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_nothing_to_do),
                cmocka_unit_test(test_from_zero_writes_only_the_count),
                cmocka_unit_test(test_n_to_m_goes_through_zero),
                cmocka_unit_test(test_to_zero_writes_only_zero),
                cmocka_unit_test(test_unreadable_count_writes_nothing),
                cmocka_unit_test(test_disable_refused),
                cmocka_unit_test(test_enable_fails_after_disabling_and_restore_works),
                cmocka_unit_test(test_enable_fails_and_restore_fails_too),
                cmocka_unit_test(test_restore_that_enables_fewer_is_not_ok),
                cmocka_unit_test(test_enable_from_zero_fails_without_restore),
                cmocka_unit_test(test_driver_enables_fewer),
                cmocka_unit_test(test_final_reread_fails),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
