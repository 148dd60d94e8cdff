/* SPDX-License-Identifier: MIT */

/* The program each of the daemon's libraries is linked into whole, with
 * only the libraries it may use (meson.build: link-readers, link-model,
 * link-sources, link-bus): a call across a bound is an undefined reference
 * at build time. */
int main(void) {
        return 0;
}
