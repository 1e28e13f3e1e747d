/*
 * train_digits: trains a small network on the 8x8 handwritten digits with
 * libtc's C ABI only, like a PyTorch training script would:
 *
 *   train_digits [--model mlp|cnn] [--epochs N] [--batch N] [--lr X]
 *                [--threads N] [--seed N] [--data PATH]
 *
 * The data (examples/data/digits.csv.gz: 1797 lines of 64 pixels 0..16 and a
 * label) is split 80/20 with a fixed seed; the MLP is 64 -> 128 -> ReLU -> 10,
 * the CNN conv 1->16 3x3 (pad 1) -> ReLU -> max pool 2 -> linear 256 -> 10;
 * both train with softmax cross-entropy and Adam. Every status is checked: on
 * failure the program prints libtc's message and exits with status 1.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tc.h"

#ifdef TC_HAVE_ZLIB
#include <zlib.h>
#endif

#define NUM_PIXELS 64
#define NUM_CLASSES 10
#define MAX_SAMPLES 4096

/* ---- errors ------------------------------------------------------------ */

static void check(int32_t status, const char* what) {
  if (status == TC_OK) return;
  const char* name = "?";
  const char* message = "";
  tc_status_name(status, &name);
  tc_last_error(&message);
  fprintf(stderr, "train_digits: %s failed: %s: %s\n", what, name, message);
  exit(1);
}
#define CHECK(call) check((call), #call)

/* ---- data ---------------------------------------------------------------- */

typedef struct {
  float x[MAX_SAMPLES][NUM_PIXELS];
  int64_t y[MAX_SAMPLES];
  int n;
} Dataset;

#ifdef TC_HAVE_ZLIB
/* Parses "p0,...,p63,label" lines; returns the number of samples or -1. */
static int load_digits(const char* path, Dataset* d) {
  gzFile f = gzopen(path, "rb");
  if (!f) return -1;
  char line[1024];
  d->n = 0;
  while (gzgets(f, line, sizeof line) && d->n < MAX_SAMPLES) {
    if (line[0] == '\n' || line[0] == '\0') continue;
    char* p = line;
    int ok = 1;
    for (int i = 0; i <= NUM_PIXELS && ok; ++i) {
      char* end;
      long v = strtol(p, &end, 10);
      if (end == p) ok = 0;
      if (i < NUM_PIXELS) {
        d->x[d->n][i] = (float)v / 16.0f; /* pixels 0..16 -> [0, 1] */
      } else if (v < 0 || v >= NUM_CLASSES) {
        ok = 0;
      } else {
        d->y[d->n] = v;
      }
      p = end + (*end == ',');
    }
    if (!ok) {
      fprintf(stderr, "train_digits: %s: malformed line %d\n", path, d->n + 1);
      gzclose(f);
      return -1;
    }
    d->n++;
  }
  gzclose(f);
  return d->n;
}
#else
static int load_digits(const char* path, Dataset* d) {
  (void)path;
  (void)d;
  fprintf(stderr, "train_digits: built without zlib, cannot read .csv.gz\n");
  return -1;
}
#endif

/* A fixed-seed LCG (Knuth's MMIX constants): the same split and batch order
 * on every machine, independent of libc's rand(). */
static uint64_t lcg_state;
static uint32_t lcg_next(void) {
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(lcg_state >> 33);
}
static void shuffle(int* idx, int n) {
  for (int i = n - 1; i > 0; --i) {
    int j = (int)(lcg_next() % (uint32_t)(i + 1));
    int t = idx[i];
    idx[i] = idx[j];
    idx[j] = t;
  }
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the model ------------------------------------------------------------ */

enum { MODEL_MLP, MODEL_CNN };

typedef struct {
  int kind;
  tc_tensor params[4]; /* MLP: w1 b1 w2 b2; CNN: conv w, conv b, fc w, fc b */
} Model;

/* A parameter initialized like torch.nn.Linear/Conv2d: kaiming_uniform(a =
 * sqrt(5)) weights and uniform(+-1/sqrt(fan_in)) biases. */
static tc_tensor new_param(const int64_t* shape, int64_t ndim, int64_t fan_in, int is_bias) {
  tc_tensor t;
  CHECK(tc_empty(shape, ndim, TC_FLOAT32, TC_CPU, &t));
  if (is_bias) {
    double bound = 1.0 / sqrt((double)fan_in);
    CHECK(tc_uniform_(t, -bound, bound));
  } else {
    CHECK(tc_kaiming_uniform_(t, sqrt(5.0)));
  }
  CHECK(tc_tensor_set_requires_grad(t, 1));
  return t;
}

static void model_init(Model* m, int kind) {
  m->kind = kind;
  if (kind == MODEL_MLP) {
    const int64_t w1[2] = {128, NUM_PIXELS}, b1[1] = {128}, w2[2] = {NUM_CLASSES, 128}, b2[1] = {NUM_CLASSES};
    m->params[0] = new_param(w1, 2, NUM_PIXELS, 0);
    m->params[1] = new_param(b1, 1, NUM_PIXELS, 1);
    m->params[2] = new_param(w2, 2, 128, 0);
    m->params[3] = new_param(b2, 1, 128, 1);
  } else {
    const int64_t cw[4] = {16, 1, 3, 3}, cb[1] = {16}, fw[2] = {NUM_CLASSES, 16 * 4 * 4},
                  fb[1] = {NUM_CLASSES};
    m->params[0] = new_param(cw, 4, 9, 0);
    m->params[1] = new_param(cb, 1, 9, 1);
    m->params[2] = new_param(fw, 2, 16 * 4 * 4, 0);
    m->params[3] = new_param(fb, 1, 16 * 4 * 4, 1);
  }
}

static void model_free(Model* m) {
  for (int i = 0; i < 4; ++i) CHECK(tc_tensor_free(m->params[i]));
}

/* logits [B, 10] for x [B, 64]. Intermediates are freed as soon as the next
 * op has them: the graph keeps what backward needs. */
static tc_tensor model_forward(const Model* m, tc_tensor x) {
  tc_tensor h, a, logits;
  if (m->kind == MODEL_MLP) {
    CHECK(tc_linear(x, m->params[0], m->params[1], &h));
    CHECK(tc_relu(h, &a));
    CHECK(tc_tensor_free(h));
    CHECK(tc_linear(a, m->params[2], m->params[3], &logits));
    CHECK(tc_tensor_free(a));
    return logits;
  }
  int64_t n;
  CHECK(tc_tensor_numel(x, &n));
  const int64_t img[4] = {n / NUM_PIXELS, 1, 8, 8}, flat[2] = {n / NUM_PIXELS, 16 * 4 * 4};
  const int64_t stride[2] = {1, 1}, pad[2] = {1, 1}, dil[2] = {1, 1}, pool[2] = {2, 2}, nopad[2] = {0, 0};
  tc_tensor xi, c, p, f;
  CHECK(tc_reshape(x, img, 4, &xi));
  CHECK(tc_conv2d(xi, m->params[0], m->params[1], stride, pad, dil, 1, &c));
  CHECK(tc_tensor_free(xi));
  CHECK(tc_relu(c, &a));
  CHECK(tc_tensor_free(c));
  CHECK(tc_max_pool2d(a, pool, NULL, nopad, &p));
  CHECK(tc_tensor_free(a));
  CHECK(tc_reshape(p, flat, 2, &f));
  CHECK(tc_tensor_free(p));
  CHECK(tc_linear(f, m->params[2], m->params[3], &logits));
  CHECK(tc_tensor_free(f));
  return logits;
}

/* ---- batches ------------------------------------------------------------ */

static float batch_x[MAX_SAMPLES][NUM_PIXELS];
static int64_t batch_y[MAX_SAMPLES];

/* Tensors for samples idx[0..n-1]: x [n, 64] float32 and y [n] int64. */
static void make_batch(const Dataset* d, const int* idx, int n, tc_tensor* x, tc_tensor* y) {
  for (int i = 0; i < n; ++i) {
    memcpy(batch_x[i], d->x[idx[i]], sizeof batch_x[i]);
    batch_y[i] = d->y[idx[i]];
  }
  const int64_t xs[2] = {n, NUM_PIXELS}, ys[1] = {n};
  CHECK(tc_from_data(batch_x, (int64_t)sizeof(float) * n * NUM_PIXELS, xs, 2, TC_FLOAT32, x));
  CHECK(tc_from_data(batch_y, (int64_t)sizeof(int64_t) * n, ys, 1, TC_INT64, y));
}

/* Test accuracy in [0, 1], computed without recording a graph. */
static double evaluate(const Model* m, const Dataset* d, const int* idx, int n) {
  int32_t prev;
  CHECK(tc_set_grad_enabled(0, &prev));
  tc_tensor x, y, logits;
  make_batch(d, idx, n, &x, &y);
  logits = model_forward(m, x);
  static float out[MAX_SAMPLES][NUM_CLASSES];
  CHECK(tc_tensor_copy_to(logits, out, (int64_t)sizeof(float) * n * NUM_CLASSES));
  int correct = 0;
  for (int i = 0; i < n; ++i) {
    int best = 0;
    for (int c = 1; c < NUM_CLASSES; ++c)
      if (out[i][c] > out[i][best]) best = c;
    correct += best == d->y[idx[i]];
  }
  CHECK(tc_tensor_free(logits));
  CHECK(tc_tensor_free(x));
  CHECK(tc_tensor_free(y));
  CHECK(tc_set_grad_enabled(prev, NULL));
  return (double)correct / n;
}

static void progress(int done, int total, double loss) {
  const int width = 30, filled = done * width / total;
  char bar[64];
  for (int i = 0; i < width; ++i) bar[i] = i < filled ? '#' : '.';
  bar[width] = '\0';
  fprintf(stderr, "\r  [%s] %4d/%d  loss %.4f", bar, done, total, loss);
  if (done == total) fprintf(stderr, "\r%*s\r", width + 40, "");
  fflush(stderr);
}

/* ---- main --------------------------------------------------------------- */

static void usage(void) {
  fprintf(stderr,
          "usage: train_digits [--model mlp|cnn] [--epochs N] [--batch N] [--lr X] [--threads N]\n"
          "                    [--seed N] [--data PATH]\n");
  exit(2);
}

/* A whole decimal integer in [lo, hi], else usage() (exit 2): "--epochs abc"
 * is an error, not the default. */
static long parse_int(const char* v, long lo, long hi) {
  char* end = NULL;
  errno = 0;
  const long n = strtol(v, &end, 10);
  if (end == v || *end != '\0' || errno != 0 || n < lo || n > hi) {
    fprintf(stderr, "train_digits: '%s' is not an integer in [%ld, %ld]\n", v, lo, hi);
    usage();
  }
  return n;
}

/* A finite positive number, else usage(). */
static double parse_positive(const char* v) {
  char* end = NULL;
  errno = 0;
  const double x = strtod(v, &end);
  if (end == v || *end != '\0' || errno != 0 || !(x > 0) || !isfinite(x)) {
    fprintf(stderr, "train_digits: '%s' is not a positive number\n", v);
    usage();
  }
  return x;
}

int main(int argc, char** argv) {
  const char* data_path = NULL;
  int kind = MODEL_MLP, epochs = 0, batch = 32, threads = 0;
  double lr = 0;
  uint64_t seed = 42;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) usage();
    if (!v) usage();
    if (!strcmp(a, "--data"))
      data_path = v;
    else if (!strcmp(a, "--model") && !strcmp(v, "mlp"))
      kind = MODEL_MLP;
    else if (!strcmp(a, "--model") && !strcmp(v, "cnn"))
      kind = MODEL_CNN;
    else if (!strcmp(a, "--epochs"))
      epochs = (int)parse_int(v, 1, 100000);
    else if (!strcmp(a, "--batch"))
      batch = (int)parse_int(v, 1, MAX_SAMPLES);
    else if (!strcmp(a, "--lr"))
      lr = parse_positive(v);
    else if (!strcmp(a, "--threads"))
      threads = (int)parse_int(v, 1, 4096);
    else if (!strcmp(a, "--seed"))
      seed = (uint64_t)parse_int(v, 0, LONG_MAX);
    else
      usage();
    ++i;
  }
  if (epochs <= 0) epochs = kind == MODEL_MLP ? 20 : 15;
  if (lr <= 0) lr = kind == MODEL_MLP ? 3e-3 : 3e-3;
  if (batch <= 0 || batch > MAX_SAMPLES) usage();

  static Dataset data;
  /* --data, else the path from the current dir, else the copy next to this
   * source file (compiled in), so it runs from the build dir too. */
  const char* tried[3] = {data_path, data_path ? NULL : "examples/data/digits.csv.gz", NULL};
#ifdef TC_EXAMPLE_DATA_DIR
  if (!data_path) tried[2] = TC_EXAMPLE_DATA_DIR "/digits.csv.gz";
#endif
  const char* used = NULL;
  for (int i = 0; i < 3 && !used; ++i)
    if (tried[i] && access(tried[i], R_OK) == 0) used = tried[i];
  if (!used || load_digits(used, &data) < 100) {
    fprintf(stderr, "train_digits: cannot read the digits data (%s); pass --data PATH\n",
            used ? used : (data_path ? data_path : "examples/data/digits.csv.gz"));
    return 1;
  }

  tc_init_options opts;
  memset(&opts, 0, sizeof opts);
  opts.size = sizeof opts;
  opts.num_threads = threads;
  opts.use_seed = 1;
  opts.seed = seed;
  CHECK(tc_init(&opts));
  char report[4096];
  int64_t needed;
  CHECK(tc_init_report(report, sizeof report, &needed));
  printf("%s", report);
  if (needed > 1 && report[strlen(report) - 1] != '\n') printf("\n");
  int64_t nthreads;
  CHECK(tc_get_flag("num_threads", &nthreads));

  /* The fixed 80/20 split. */
  static int order[MAX_SAMPLES];
  for (int i = 0; i < data.n; ++i) order[i] = i;
  lcg_state = seed;
  shuffle(order, data.n);
  const int n_train = data.n * 8 / 10, n_test = data.n - n_train;
  int* train_idx = order;
  const int* test_idx = order + n_train;
  printf(
      "data: %s, %d samples (%d train, %d test); model %s; %d epochs, batch %d, Adam lr %g, %lld threads\n",
      used, data.n, n_train, n_test, kind == MODEL_MLP ? "mlp 64-128-10" : "cnn", epochs, batch, lr,
      (long long)nthreads);

  Model model;
  model_init(&model, kind);
  tc_adam_options adam;
  memset(&adam, 0, sizeof adam);
  adam.size = sizeof adam;
  adam.lr = lr;
  adam.beta1 = 0.9;
  adam.beta2 = 0.999;
  adam.eps = 1e-8;
  tc_optimizer opt;
  CHECK(tc_optimizer_adam(model.params, 4, &adam, &opt));

  const int tty = isatty(fileno(stderr));
  const int steps = (n_train + batch - 1) / batch;
  const double t_start = now_s();
  double acc = 0;
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    const double t0 = now_s();
    shuffle(train_idx, n_train);
    double loss_sum = 0;
    for (int s = 0; s < steps; ++s) {
      const int off = s * batch, n = off + batch <= n_train ? batch : n_train - off;
      tc_tensor x, y, logits, loss;
      make_batch(&data, train_idx + off, n, &x, &y);
      logits = model_forward(&model, x);
      CHECK(tc_cross_entropy(logits, y, TC_REDUCTION_MEAN, &loss));
      CHECK(tc_optimizer_zero_grad(opt));
      CHECK(tc_backward(loss, NULL, 0));
      CHECK(tc_optimizer_step(opt));
      double l;
      CHECK(tc_tensor_item(loss, &l));
      loss_sum += l * n;
      CHECK(tc_tensor_free(loss));
      CHECK(tc_tensor_free(logits));
      CHECK(tc_tensor_free(x));
      CHECK(tc_tensor_free(y));
      if (tty) progress(s + 1, steps, loss_sum / (off + n));
    }
    acc = evaluate(&model, &data, test_idx, n_test);
    printf("epoch %2d  train_loss %.4f  test_acc %6.2f%%  time %.3fs\n", epoch, loss_sum / n_train,
           100.0 * acc, now_s() - t0);
    fflush(stdout);
  }
  printf("final test accuracy %.2f%% after %d epochs in %.2fs\n", 100.0 * acc, epochs, now_s() - t_start);

  CHECK(tc_optimizer_free(opt));
  model_free(&model);
  int64_t live;
  CHECK(tc_get_flag("live_tensors", &live));
  printf("live_tensors %lld\n", (long long)live);
  CHECK(tc_shutdown());
  return live == 0 ? 0 : 1;
}
