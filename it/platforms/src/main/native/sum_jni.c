#include <jni.h>
#include "sum.h"

/* t.Sum's native methods: the same library answers Java on either platform. */
JNIEXPORT jdouble JNICALL Java_t_Sum_roots(JNIEnv *env, jclass type, jlong n) { return sum_roots((long) n); }

JNIEXPORT jstring JNICALL Java_t_Sum_machine(JNIEnv *env, jclass type) {
  return (*env)->NewStringUTF(env, sum_machine());
}
