// Swift cannot call C variadic functions, so the el_set/el_get/history calls the
// shell needs are wrapped here in fixed-signature inline functions.
#ifndef TROVE_CLIBEDIT_SHIM_H
#define TROVE_CLIBEDIT_SHIM_H
#include <histedit.h>
#include <stdio.h>
#include <locale.h>
#include <langinfo.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

static inline int trove_el_set_prompt(EditLine *el, char *(*prompt)(EditLine *)) {
    return el_set(el, EL_PROMPT, prompt);
}
static inline int trove_el_set_editor(EditLine *el, const char *mode) {
    return el_set(el, EL_EDITOR, mode);
}
static inline int trove_el_set_history(EditLine *el, History *h) {
    return el_set(el, EL_HIST, history, h);
}
static inline int trove_el_set_signal(EditLine *el, int on) {
    return el_set(el, EL_SIGNAL, on);
}
static inline int trove_el_add_fn(EditLine *el, const char *name, const char *help,
                                  unsigned char (*fn)(EditLine *, int)) {
    return el_set(el, EL_ADDFN, name, help, fn);
}
static inline int trove_el_bind(EditLine *el, const char *key, const char *fn) {
    return el_set(el, EL_BIND, key, fn, NULL);
}
static inline int trove_el_set_clientdata(EditLine *el, void *data) {
    return el_set(el, EL_CLIENTDATA, data);
}
static inline void *trove_el_get_clientdata(EditLine *el) {
    void *data = NULL;
    el_get(el, EL_CLIENTDATA, &data);
    return data;
}
static inline int trove_history_setsize(History *h, HistEvent *ev, int size) {
    return history(h, ev, H_SETSIZE, size);
}
static inline int trove_history_setunique(History *h, HistEvent *ev, int unique) {
    return history(h, ev, H_SETUNIQUE, unique);
}
static inline int trove_history_enter(History *h, HistEvent *ev, const char *line) {
    return history(h, ev, H_ENTER, line);
}
static inline int trove_history_load(History *h, HistEvent *ev, const char *file) {
    return history(h, ev, H_LOAD, file);
}
static inline int trove_history_save(History *h, HistEvent *ev, const char *file) {
    return history(h, ev, H_SAVE, file);
}
static inline int trove_history_clear(History *h, HistEvent *ev) {
    return history(h, ev, H_CLEAR);
}
static inline int trove_el_set_addfn_tab(EditLine *el) {
    return el_set(el, EL_BIND, "^I", "trove-complete", NULL);
}
// A custom character reader, so that Ctrl-C can end a blocked read without a race.
static inline int trove_el_set_getcfn(EditLine *el, int (*fn)(EditLine *, wchar_t *)) {
    return el_wset(el, EL_GETCFN, fn);  // el_set would mark the reader as narrow (bytes)
}
static inline int trove_el_source(EditLine *el) {
    return el_source(el, NULL);
}

// ioctl is variadic too; the shell needs the terminal's width for tables.
static inline int trove_terminal_columns(int fd) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    return 0;
}

// Whether the locale (after setlocale(LC_CTYPE, "")) encodes text as UTF-8.
static inline int trove_locale_is_utf8(void) {
    const char *codeset = nl_langinfo(CODESET);
    return codeset != NULL && (codeset[0] == 'U' || codeset[0] == 'u') &&
           (codeset[1] == 'T' || codeset[1] == 't') && (codeset[2] == 'F' || codeset[2] == 'f');
}
#endif
