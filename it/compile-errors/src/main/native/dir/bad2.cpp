int b() {

  return undefined_name;
}
