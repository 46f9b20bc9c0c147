/* The JNI side of com.example.Saxpy: y = a * x + y over float arrays, and the library's answer to
   "which build are you". */
#include <jni.h>

static int loads = 0;

JNIEXPORT jint JNI_OnLoad(JavaVM *vm, void *reserved) {
  (void) vm;
  (void) reserved;
  loads++;
  return JNI_VERSION_1_8;
}

JNIEXPORT void JNICALL Java_com_example_Saxpy_saxpy(JNIEnv *env, jclass type, jfloat a, jfloatArray x, jfloatArray y) {
  (void) type;
  jsize n = (*env)->GetArrayLength(env, x);
  jfloat *xs = (*env)->GetFloatArrayElements(env, x, NULL);
  jfloat *ys = (*env)->GetFloatArrayElements(env, y, NULL);
  for (jsize i = 0; i < n; i++) ys[i] = a * xs[i] + ys[i];
  (*env)->ReleaseFloatArrayElements(env, x, xs, JNI_ABORT);
  (*env)->ReleaseFloatArrayElements(env, y, ys, 0);
}

JNIEXPORT jint JNICALL Java_com_example_Saxpy_loads(JNIEnv *env, jclass type) {
  (void) env;
  (void) type;
  return loads;
}

/* Not part of the API: stays private. */
int saxpy_internal_counter(void) { return loads; }
